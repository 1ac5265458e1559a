"""ipywidgets steppers: step through any method's answer with Back / Next, each step shown by
its payload's line and its method report's view (``ace_lab.widgets.views``).

:func:`stepper` pages through one answer (all its steps, or one group of them: an ArcRAG
pass or subplan, a MOSAIC depth, as the method's report groups its payloads);
:func:`method_stepper` picks a question and a method by registry name (ACE, ArcRAG, MOSAIC or
a baseline), runs it and pages through its trace;
:func:`policy_stepper` is the same for ACE with Full / Adaptive / manual policy toggles. Methods
are built through the registry (:func:`ace_lab.registry.make_method`), never by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ace_lab.evidence import Answer
from ace_lab.registry import make_method
from ace_lab.retrieval import RetrievalGraph
from ace_lab.widgets.stages import Stage, stages, styled
from ace_lab.widgets.views import Views, step_html, step_views

#: The stepper's ACE modes; "manual" is the fixed policy the toggles describe.
ACE_MODES = ("full", "adaptive", "manual")


def ace_method_name(
    mode: str = "adaptive",
    *,
    gap: bool = True,
    depth: bool = True,
    breadth: bool = True,
    pruning: bool = True,
    backbone: str = "hirag",
) -> str:
    """The registry name of an ACE stepper mode: ``ace-full``, ``ace-adaptive``, or for
    ``manual`` the fixed policy of the toggles (``ace-fixed:<label>``, e.g. ``gap+depth``);
    ``@graphrag`` on the GraphRAG backbone."""
    if mode not in ACE_MODES:
        raise ValueError(f"unknown ACE stepper mode {mode!r}; use one of {ACE_MODES}")
    if mode == "manual":
        parts = [p for p, on in (("gap", gap), ("depth", depth), ("breadth", breadth)) if on]
        name = "ace-fixed:" + "+".join(parts + (["prune"] if pruning else []))
    else:
        name = f"ace-{mode}"
    return name if backbone == "hirag" else f"{name}@{backbone}"


def ace_method(graph: RetrievalGraph, llm: Any, mode: str = "adaptive", **toggles: Any) -> Any:
    """The ACE method for a stepper mode (see :func:`ace_method_name`), from the registry."""
    return make_method(ace_method_name(mode, **toggles), graph, llm)


class Pager:
    """Back / Next over the stages of one answer, each shown in an output area; ``group``
    narrows them to one ArcRAG pass or subplan, or one MOSAIC depth (the report's groups)."""

    #: The group choice that shows every step.
    ALL = "every step"

    def __init__(self) -> None:
        import ipywidgets as w

        self.stages: list[Stage] = []
        self.shown: list[int] = []  # positions in ``stages`` of the chosen group's steps
        self.views: Views = {}
        self.back, self.forward = w.Button(description="◀"), w.Button(description="▶")
        self.position = w.IntSlider(min=0, max=0, description="step")
        self.group = w.Dropdown(options=[self.ALL], value=self.ALL, description="steps of")
        self.out = w.Output()
        self.back.on_click(lambda _: self.move(-1))
        self.forward.on_click(lambda _: self.move(1))
        self.position.observe(self.show, names="value")
        self.group.observe(self.narrow, names="value")
        self.controls = w.HBox([self.back, self.position, self.forward, self.group])

    def move(self, delta: int) -> None:
        self.position.value = min(self.position.max, max(0, self.position.value + delta))

    def load(self, answer: Answer, views: Views | None = None) -> None:
        self.stages = stages(answer)
        self.views = step_views(answer.method) if views is None else views
        groups = list(dict.fromkeys(s.group for s in self.stages if s.group))
        self.group.options = [self.ALL, *groups]
        if self.group.value == self.ALL:
            self.narrow()
        else:
            self.group.value = self.ALL  # narrows through the observer

    def narrow(self, _: Any = None) -> None:
        """Step through the chosen group's stages only (every stage for :attr:`ALL`)."""
        chosen = self.group.value
        self.shown = [i for i, s in enumerate(self.stages) if chosen in (self.ALL, s.group)]
        self.position.max, self.position.value = max(len(self.shown) - 1, 0), 0
        self.show()

    def message(self, text: str) -> None:
        self.out.clear_output()
        with self.out:
            print(text)

    def show(self, _: Any = None) -> None:
        from IPython.display import HTML, display

        if not self.shown:
            self.message("press Run")
            return
        stage = self.stages[self.shown[self.position.value]]
        self.out.clear_output()
        with self.out:
            where = f" [{stage.group}]" if stage.group else ""
            print(f"{stage.name}{where}: {stage.summary}")
            print(f"{stage.seconds:.2f}s · {stage.input_tokens} in / {stage.output_tokens} out")
            display(HTML(step_html(stage.step, self.views, heading=False)))
            for item_id, why in stage.removed:
                print(f"  removed {item_id}: {why}")
            if stage.evidence:
                display(styled(stage.evidence))


def stepper(answer: Answer, views: Views | None = None) -> Any:
    """An ipywidgets stepper over ``answer``'s trace, any method: each step's payload line,
    cost, repairs and notes, its report view (``views``, default the method's ``STEP_VIEWS``)
    and the evidence it added or removed."""
    import ipywidgets as w

    pager = Pager()
    pager.load(answer, views)
    return w.VBox(
        [w.HTML(f"<b>{answer.method or 'answer'}</b>: {answer.text}"), pager.controls, pager.out]
    )


def _question_picker(questions: Sequence[Any]) -> Any:
    import ipywidgets as w

    return w.Dropdown(
        options=[(f"{q.id[:10]} · {q.question[:80]}", i) for i, q in enumerate(questions)],
        description="question",
        layout=w.Layout(width="95%"),
    )


def _runner(
    pager: Pager, graph: RetrievalGraph, llm: Any, question: Any, questions: Sequence[Any]
) -> Callable[[str], None]:
    """Run method ``name`` on the picked question and page through its trace."""

    def run(name: str) -> None:
        pager.message(f"running {name} … (cached steps return at once)")
        try:
            answer = make_method(name, graph, llm).answer(questions[question.value].question)
        except (KeyError, ValueError) as err:  # an unknown name, an empty policy
            pager.message(f"cannot run {name}: {err}")
            return
        pager.load(answer)

    return run


def method_stepper(
    graph: RetrievalGraph, llm: Any, questions: Sequence[Any], methods: Sequence[str]
) -> Any:
    """An ipywidgets UI: pick a question and a method by registry name (any family the graph
    serves), press Run, then step through the answer's trace with ◀ ▶."""
    import ipywidgets as w

    question = _question_picker(questions)
    method = w.Combobox(options=list(methods), value=methods[0], description="method")
    button, pager = w.Button(description="Run"), Pager()
    run = _runner(pager, graph, llm, question, questions)
    button.on_click(lambda _: run(method.value))
    pager.show()
    return w.VBox([question, w.HBox([method, button]), pager.controls, pager.out])


def policy_stepper(graph: RetrievalGraph, llm: Any, questions: Sequence[Any]) -> Any:
    """:func:`method_stepper` for ACE: pick a question and Full / Adaptive, or manual toggles of
    gap / branches / pruning (a fixed policy), run, then step through the stages."""
    import ipywidgets as w

    question = _question_picker(questions)
    mode = w.ToggleButtons(options=list(ACE_MODES), value="adaptive")
    toggles = {
        name: w.Checkbox(value=True, description=name, indent=False)
        for name in ("gap", "depth", "breadth", "pruning")
    }
    button, pager = w.Button(description="Run"), Pager()
    run = _runner(pager, graph, llm, question, questions)

    def on_run(_: Any) -> None:
        for toggle in toggles.values():
            toggle.disabled = mode.value != "manual"
        run(ace_method_name(mode.value, **{k: t.value for k, t in toggles.items()}))

    button.on_click(on_run)
    pager.show()
    rows = [question, mode, w.HBox(list(toggles.values())), w.HBox([button]), pager.controls]
    return w.VBox([*rows, pager.out])
