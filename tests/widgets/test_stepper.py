"""ace_lab.widgets.stepper and .views: the stepper steps through every method family's trace
(ACE, ArcRAG, MOSAIC, a baseline; scripted models), each step shown by its payload's line and,
where the method's report has one, the view of its payload type; views dispatch on the payload
type (a subclass takes its base's view), never on step names; methods come from the registry."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import pytest

from ace_lab import widgets
from ace_lab.evidence import Answer, Context, Evidence, Trace
from ace_lab.llm import LLM
from ace_lab.registry import make_method
from ace_lab.steps import Repair, StepPayload
from tests.support.replies import ARC_QUESTION, ace_reply, arc_reply, mosaic_reply
from tests.support.scripted import ScriptedClient

FAMILIES = {
    "ace-adaptive": ("toy_graph", ace_reply, "tidal lantern museum"),
    "mosaic": ("toy_graph", mosaic_reply(), "Where is the tidal lantern kept?"),
    "arcrag": ("openie_graph", arc_reply(), ARC_QUESTION),
    "naive": ("toy_graph", ace_reply, "tidal lantern museum"),
}


@pytest.fixture(params=list(FAMILIES))
def family_answer(request, settings) -> Answer:
    fixture, reply, question = FAMILIES[request.param]
    graph = request.getfixturevalue(fixture)
    llm = LLM(settings, client=ScriptedClient(reply))
    return make_method(request.param, graph, llm).answer(question)


def _pages(ui) -> tuple:
    """The stepper's step slider and output area (the last two rows of its layout)."""
    controls, out = ui.children[-2:]
    return controls.children[1], out


def test_the_stepper_steps_through_every_method_family(family_answer):
    answer = family_answer
    stages = widgets.stages(answer)
    assert len(stages) == len(answer.trace.steps) > 1
    views = widgets.step_views(answer.method)
    for stage in stages:
        assert stage.payload is not None, f"{answer.method}: step {stage.name} recorded nothing"
        assert stage.summary == stage.payload.line()
        html = widgets.step_html(stage.step, views)
        assert escape(stage.payload.line()) in html and escape(stage.name) in html
        view = widgets.view_for(stage.payload, views)
        if view is not None:
            assert view(stage.step) in html
    ui = widgets.stepper(answer)
    slider, _ = _pages(ui)
    assert slider.max == len(stages) - 1
    for position in range(len(stages)):  # every step renders
        slider.value = position


def test_a_method_reports_views_show_in_the_stepper(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    answer = make_method("mosaic", toy_graph, llm).answer("Where is the tidal lantern kept?")
    views = widgets.step_views(answer.method)
    viewed = [s for s in answer.trace.steps if widgets.view_for(s.payload, views) is not None]
    assert viewed, "MOSAIC's report gives no step view"
    step = viewed[0]
    assert widgets.step_html(step, views) != widgets.step_html(step, {})


@dataclass(frozen=True)
class ProbeDecision(StepPayload):
    """A payload only this test records."""

    choice: str

    def line(self) -> str:
        return f"chose {self.choice}"


@dataclass(frozen=True)
class ProbeDecisionSub(ProbeDecision):
    pass


def test_views_dispatch_on_the_payload_type_and_escape_the_trace():
    trace = Trace()
    with trace.step("explore") as step:
        step.record(ProbeDecision("<b>left</b>"))
        step.repairs.append(Repair("probe", "fallback", 3, ("bad",)))
    with trace.step("explore") as step:  # the same name, another type
        step.record(ProbeDecisionSub("right"))
    with trace.step("other") as step:
        step.add([Evidence("p1", "passage", "x")])
    first, second, third = trace.steps
    views = {ProbeDecision: lambda s: f"<i>view of {escape(s.payload.choice)}</i>"}
    html = widgets.step_html(first, views)
    assert "chose &lt;b&gt;left&lt;/b&gt;" in html and "<b>left</b>" not in html
    assert "<i>view of &lt;b&gt;left&lt;/b&gt;</i>" in html
    assert "repair probe: fallback after 1 failed attempt(s)" in html
    assert "<i>view of right</i>" in widgets.step_html(second, views)  # the base class's view
    assert widgets.view_for(third.payload, views) is None and "<i>" not in widgets.step_html(
        third, views
    )
    answer = Answer("x", Context([]), trace, method="probe")
    slider, _ = _pages(widgets.stepper(answer, views))
    assert slider.max == 2
    assert widgets.step_views("probe") == {} and widgets.step_views("naive") == {}
    assert _pages(widgets.stepper(answer))[0].max == 2  # no report for an unknown method


def test_ace_modes_name_registry_methods():
    assert widgets.ace_method_name("adaptive") == "ace-adaptive"
    assert widgets.ace_method_name("full", backbone="graphrag") == "ace-full@graphrag"
    assert widgets.ace_method_name("manual", breadth=False) == "ace-fixed:gap+depth+prune"
    assert widgets.ace_method_name("manual", gap=False, pruning=False) == "ace-fixed:depth+breadth"
    with pytest.raises(ValueError, match="mode"):
        widgets.ace_method_name("auto")


def test_method_and_policy_steppers_run_registry_methods(settings, toy_graph):
    from ace_lab.data import load_dataset, make_slice

    questions = make_slice(load_dataset("toy"), 8).questions[:2]
    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    ui = widgets.method_stepper(toy_graph, llm, questions, ["mosaic", "ace-full"])
    method, run = ui.children[1].children
    run.click()
    slider, _ = _pages(ui)
    assert slider.max >= 4  # policy, seed, traverse…, stop, select, generate
    method.value = "no-such-method"
    run.click()  # an unknown name is reported, not raised
    ace = widgets.policy_stepper(
        toy_graph, LLM(settings, client=ScriptedClient(ace_reply)), questions
    )
    ace.children[3].children[0].click()
    assert _pages(ace)[0].max >= 5


def test_arcrag_steps_per_pass_and_subplan_and_mosaic_per_depth(settings, openie_graph, toy_graph):
    from ace_lab.arc.steps import CypherExecution
    from ace_lab.mosaic.steps import TraversalDepth

    arc = make_method("arcrag", openie_graph, LLM(settings, client=ScriptedClient(arc_reply())))
    answer = arc.answer(ARC_QUESTION)
    stages = widgets.stages(answer)
    executions = [s for s in stages if isinstance(s.payload, CypherExecution)]
    assert executions and all(
        s.group == f"pass {s.payload.pass_index} · subplan {s.payload.subplan_index}"
        for s in executions
    )
    assert {s.group for s in stages if s.group} >= {"pass 1"}
    ui = widgets.stepper(answer)
    slider, _ = _pages(ui)
    group = ui.children[-2].children[3]
    group.value = executions[0].group  # step through that subplan only
    assert slider.max == 0
    group.value = "pass 1"
    assert slider.max == sum(s.group == "pass 1" for s in stages) - 1
    group.value = group.options[0]
    assert slider.max == len(stages) - 1
    mosaic = make_method("mosaic", toy_graph, LLM(settings, client=ScriptedClient(mosaic_reply())))
    depths = widgets.stages(mosaic.answer("Where is the tidal lantern kept?"))
    traversals = [s for s in depths if isinstance(s.payload, TraversalDepth)]
    assert traversals and all(s.group == f"depth {s.payload.depth}" for s in traversals)
    assert all(not s.group for s in depths if s not in traversals)


def test_printed_stages_announce_each_group(settings, toy_graph, capsys):
    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    answer = make_method("mosaic", toy_graph, llm).answer("Where is the tidal lantern kept?")
    widgets.print_stages(answer, show=lambda _: None)
    printed = capsys.readouterr().out
    groups = [s.group for s in widgets.stages(answer) if s.group]
    assert groups and all(printed.count(f"----- {g} -----") == 1 for g in set(groups))
