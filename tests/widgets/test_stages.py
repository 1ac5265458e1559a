"""ace_lab.widgets.stages: stages, cost frame and evidence subgraph read only an answer's trace
(each step summarised by its payload's line), so they work for ACE and for single-retrieval
baselines alike. The steppers over every method family are in ``test_stepper.py``."""

from __future__ import annotations

from ace_lab import widgets
from ace_lab.ask import cost_line, format_trace
from ace_lab.llm import LLM
from ace_lab.registry import make_method
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient


def test_trace_printout_and_stepper_stages(settings, toy_graph, tmp_path):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    answer = make_method("ace-adaptive", toy_graph, llm).answer("tidal lantern museum")
    printed = format_trace(answer.trace)
    assert all(f"== {s.name}" in printed for s in answer.trace.steps)
    assert "llm ace.router" in printed and "2 retrieval calls" in cost_line(answer)
    assert f"   out {answer.trace.find('route').payload.line()}" in printed
    stages = {s.name: s for s in widgets.stages(answer)}
    assert list(stages) == [
        "retrieve:base",
        "route",
        "policy",
        "plan",
        "retrieve:depth",
        "merge",
        "adapt",
        "generate",
    ]
    # Each stage is summarised by what its step decided, its typed payload's own line.
    assert all(s.summary == s.payload.line() for s in stages.values())
    assert "POINT" in stages["route"].summary and "router label POINT" in stages["route"].findings
    assert "gap analysis: the museum's city is missing" in stages["plan"].findings
    base_ids = {e.id for e in stages["retrieve:base"].evidence}
    assert stages["retrieve:base"].added == [e.id for e in stages["retrieve:base"].evidence]
    # The Depth branch shows what it found; only ids C_base lacked count as new.
    assert set(stages["retrieve:depth"].added).isdisjoint(base_ids)
    # The adapted stage shows exactly the final context, and what pruning removed.
    assert [e.id for e in stages["adapt"].evidence] == [e.id for e in answer.context.evidence]
    assert {i for i, _ in stages["adapt"].removed}.isdisjoint(e.id for e in answer.context)
    assert stages["generate"].summary == f"answer: {answer.text}"
    manual = widgets.ace_method(toy_graph, llm, "manual", gap=False, depth=False)
    assert manual.name == "ace-fixed:breadth+prune"
    assert manual.answer("q").details.columns()["policy"]["label"] == "breadth+prune"
    html = widgets.evidence_subgraph(toy_graph, answer, "ev", tmp_path)
    assert html.is_file() and "vis-network" in html.read_text()


def test_a_baseline_steps_through_retrieve_and_generate(settings, toy_graph, tmp_path):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    answer = make_method("naive", toy_graph, llm).answer("tidal lantern museum")
    stages = widgets.stages(answer)
    assert [(s.name, s.kind) for s in stages] == [
        ("retrieve:base", "retrieve"),
        ("generate", "generate"),
    ]
    retrieved = stages[0]
    assert [e.id for e in retrieved.evidence] == [e.id for e in answer.context.evidence]
    assert retrieved.added == [e.id for e in retrieved.evidence] and not retrieved.removed
    assert retrieved.summary.startswith(f"retrieved {len(retrieved.evidence)} items (passages)")
    assert stages[1].summary == "answer: Brinemouth" and stages[1].input_tokens > 0
    assert not answer.trace.refined  # one retrieval: no separate "first retrieval" coverage
    costs = widgets.cost_frame(answer)
    assert list(costs["step"]) == ["retrieve:base", "generate"]
    assert costs.loc[1, "llm_calls"] == 1
    figure = widgets.stage_cost_figure(answer)
    assert [ax.get_xlabel() for ax in figure.axes] == ["seconds", "tokens (cold-cache)"]
    html = widgets.evidence_subgraph(toy_graph, answer, "naive", tmp_path)
    assert html.is_file()


def test_print_stages_shows_removals_and_new_items(settings, toy_graph, capsys):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    answer = make_method("ace-full", toy_graph, llm).answer("tidal lantern museum")
    shown: list[object] = []
    widgets.print_stages(answer, show=shown.append)
    printed = capsys.readouterr().out
    assert "=== retrieve:base: retrieved " in printed and "=== adapt: kept " in printed
    assert "    C̃: " in printed  # the step's notes follow its line
    assert "=== generate: answer: Brinemouth" in printed
    assert len(shown) == sum(bool(s.evidence) for s in widgets.stages(answer))


def test_the_styled_evidence_table_escapes_corpus_html():
    from ace_lab.evidence import Evidence

    item = Evidence("p1", "passage", "<img src=x onerror=alert(1)> <script>x()</script>")
    html = widgets.styled([item]).to_html()
    assert "<img src=x" not in html and "<script>x()" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_a_step_without_payload_is_summarised_by_its_notes_or_evidence():
    from ace_lab.evidence import Answer, Context, Evidence, Trace

    trace = Trace()
    with trace.step("retrieve:base") as step:
        step.add([Evidence("p1", "passage", "The lantern is kept in Brinemouth.")])
    with trace.step("judge") as step:
        step.notes.append("looks sufficient")
    with trace.step("stop"):
        pass
    answer = Answer("x", Context([]), trace, method="old")
    summaries = [s.summary for s in widgets.stages(answer)]
    assert summaries[0].startswith("1 items, 1 new (") and summaries[1:] == [
        "looks sufficient",
        "stop",
    ]
