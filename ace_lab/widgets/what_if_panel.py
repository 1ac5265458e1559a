"""The what-if explorer: one question, a policy's controls, and its answer as they move.

:func:`what_if` opens a question of a slice (or a free-text one) and returns an ipywidgets panel:
a tab per method plugin with what-if controls (:attr:`MethodPlugin.what_if`: MOSAIC's width or
budget × depth, ArcRAG's stages, retries, passes and graph family, ACE's topology, token budget
and backbone), whose values the plugin turns into a registry name.
Each change re-answers the question cache-first (``ace_lab.widgets.what_if``): the panel first
says whether every call is cached or how long the missing ones are expected to take, then shows
the answer, its F1/EM, tokens and time, the evidence added and removed against the previous
setting, the context diff, the change subgraph and a stepper over the new answer's trace.
Without a frontend (papermill; ``interactive=False``) it prints the same for one setting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from html import escape
from pathlib import Path
from typing import Any

from ace_lab.ask import text_question
from ace_lab.config import DEFAULT_TIER, load_settings
from ace_lab.data import load_slice, pick_questions
from ace_lab.evidence import Answer
from ace_lab.llm import get_llm
from ace_lab.methods.plugin import Knob
from ace_lab.registry import canonical_name, parse
from ace_lab.registry.plugins import plugins
from ace_lab.retrieval import RetrievalGraph
from ace_lab.widgets.stepper import Pager
from ace_lab.widgets.what_if import Outcome, Probe, WhatIf, compare
from ace_lab.widgets.what_if_views import (
    answer_html,
    change_html,
    change_view,
    iframe,
    probe_html,
)


def has_frontend() -> bool:
    """Whether a notebook frontend can show widgets (an IPython kernel; papermill runs one too,
    so notebooks pass their ``interactive`` parameter rather than rely on this)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _widget(knob: Knob) -> Any:
    """The ipywidget of one plugin control."""
    import ipywidgets as w

    if knob.kind == "slider":
        return w.IntSlider(
            value=knob.default,
            min=knob.low,
            max=knob.high,
            step=knob.step,
            description=knob.description,
            continuous_update=False,
        )
    if knob.kind == "toggles":
        return w.ToggleButtons(
            options=list(knob.options), value=knob.default, description=knob.description
        )
    if knob.kind == "dropdown":
        return w.Dropdown(options=list(knob.options), description=knob.description)
    if knob.kind == "checkbox":
        return w.Checkbox(value=knob.default, description=knob.description)
    raise ValueError(f"unknown control kind {knob.kind!r} of {knob.key!r}")


class Controls:
    """Every control of the panel, one tab per method plugin with what-if controls, and the
    registry name they stand for."""

    def __init__(self) -> None:
        import ipywidgets as w

        self.plugins = tuple(p for p in plugins() if p.what_if is not None)
        self.widgets: list[dict[str, Any]] = [
            {knob.key: _widget(knob) for knob in p.what_if.knobs}  # type: ignore[union-attr]
            for p in self.plugins
        ]
        self.tabs = w.Tab(children=[w.VBox(list(tab.values())) for tab in self.widgets])
        for i, plugin in enumerate(self.plugins):
            self.tabs.set_title(i, plugin.title)
        self.all = tuple(widget for tab in self.widgets for widget in tab.values())

    def widget(self, title: str, key: str) -> Any:
        """The widget of control ``key`` on the tab ``title`` (a plugin's title)."""
        tab = next(i for i, p in enumerate(self.plugins) if p.title == title)
        return self.widgets[tab][key]

    def name(self) -> str:
        """The registry name of the open tab's settings."""
        i = self.tabs.selected_index or 0
        values = {key: widget.value for key, widget in self.widgets[i].items()}
        return self.plugins[i].what_if.name_of(values)  # type: ignore[union-attr]

    def select(self, name: str) -> None:
        """Open the tab of method ``name`` with its settings (the panel's first setting)."""
        parts = parse(canonical_name(name))
        owner = next((i for i, p in enumerate(self.plugins) if p.owns(parts.head)), None)
        if owner is None:
            tabs = ", ".join(p.title for p in self.plugins)
            raise KeyError(f"{name!r} has no what-if controls; the panel has {tabs}")
        values = self.plugins[owner].what_if.values_of(parts)  # type: ignore[union-attr]
        for key, value in values.items():
            self.widgets[owner][key].value = value
        self.tabs.selected_index = owner

    def observe(self, callback: Callable[[Any], None]) -> None:
        for control in self.all:
            control.observe(callback, names="value")
        self.tabs.observe(callback, names="selected_index")


class Panel:
    """The explorer's widgets over one :class:`WhatIf` (``.ui`` is what a notebook displays)."""

    def __init__(self, explorer: WhatIf, method: str = "mosaic", *, auto: bool = True) -> None:
        import ipywidgets as w

        self.explorer = explorer
        self.controls = Controls()
        self.controls.select(method)
        self.auto = w.Checkbox(value=auto, description="run uncached calls", indent=False)
        self.run_button = w.Button(description="Run", disabled=True)
        self.setting = w.HTML()
        self.status = w.HTML()
        self.answer = w.HTML()
        self.answer.add_class("ace-what-if-answer")  # the browser test reads this panel
        self.change = w.HTML()
        self.graph = w.HTML()
        self.pager = Pager()
        self.pending = ""
        self.controls.observe(lambda _: self.update())
        self.run_button.on_click(lambda _: self.answer_now(self.pending))
        question = explorer.question
        gold = " | ".join(question.answers) or "(none)"
        header = w.HTML(f"<b>{escape(question.question)}</b><br>gold: {escape(gold)}")
        steps = w.VBox([self.pager.controls, self.pager.out])
        details = w.Accordion(children=[self.change, self.graph, steps])
        for i, title in enumerate(("context change", "evidence subgraph", "trace stepper")):
            details.set_title(i, title)
        row = w.HBox([self.setting, self.auto, self.run_button])
        self.ui = w.VBox([header, self.controls.tabs, row, self.status, self.answer, details])

    def update(self) -> None:
        """Re-answer under the controls' setting: cached at once, else after the mark."""
        name = self.controls.name()
        self.setting.value = f"<code>{escape(name)}</code>"
        probe = self.explorer.probe(name)
        self.status.value = probe_html(probe)
        if probe.cached or self.auto.value:
            self.answer_now(name, probe.answer)
        else:
            self.pending, self.run_button.disabled = name, False
            self.run_button.description = f"Run (≈ {probe.expected_s or 0:.0f} s)"

    def answer_now(self, name: str, cached: Answer | None = None) -> None:
        """Answer ``name`` (``cached``: the probe's answer) and show it against the last."""
        self.run_button.disabled = True
        probe = Probe(name, 0, answer=cached) if cached is not None else None
        try:
            outcome = self.explorer.run(name, probe)
        except Exception as exc:  # an unreachable model, a refused replay: say so, keep going
            self.answer.value = f"<div style='color:#d62728'>{escape(str(exc))}</div>"
            return
        self.show(outcome)

    def show(self, outcome: Outcome) -> None:
        previous = self.explorer.previous
        change = compare(previous, outcome)
        self.answer.value = answer_html(outcome)
        self.change.value = change_html(change)
        view = change_view(
            self.explorer.graph(outcome.name),
            outcome.evidence,
            previous.evidence if previous else [],
            title=f"{outcome.name} against {previous.name if previous else 'nothing'}",
        )
        self.graph.value = iframe(view)
        self.pager.load(outcome.answer)


def panel(explorer: WhatIf, method: str = "mosaic", *, auto: bool = True) -> Any:
    """The explorer's widget over ``explorer``, answered once under ``method``'s tab."""
    built = Panel(explorer, method, auto=auto)
    built.update()
    return built.ui


def open_explorer(
    question: str | int = 0,
    *,
    dataset: str = "hotpotqa_dev_sample200",
    n: int = 20,
    seed: int = 0,
    text: str | None = None,
    tier: str | None = None,
    graph_model: str = DEFAULT_TIER,
    graphs_dir: str | Path = "",
    store: str = "",
    responses: str | Path = "",
    record: bool = False,
) -> WhatIf:
    """A :class:`WhatIf` over question ``question`` of a slice (its id or position; ``text``:
    a free-text question instead), with the slice's graphs loaded as settings need them."""
    settings = load_settings(**({"tier": tier} if tier else {}))
    if graphs_dir:
        settings = replace(settings, graphs_dir=Path(graphs_dir))
    if store:
        settings = replace(settings, graph=replace(settings.graph, store=store))
    picked = pick_questions(load_slice(dataset, n, seed=seed).questions, [question])[0]
    asked = text_question(text, dataset) if text else picked

    def graph(family: str) -> RetrievalGraph:
        return RetrievalGraph.load(
            dataset, n, family, model=graph_model, seed=seed, settings=settings
        )

    llm = get_llm(settings)
    return WhatIf(asked, graph, llm, dataset=dataset, responses=responses, record=record)


def what_if(
    question: str | int = 0,
    *,
    method: str = "mosaic",
    interactive: bool | None = None,
    auto: bool = True,
    **slice_options: Any,
) -> Any:
    """The what-if panel for one question (see :func:`open_explorer` for ``slice_options``),
    opened on ``method``'s settings; without a frontend (``interactive=False``, or no notebook
    kernel) the answer under ``method`` printed instead, and the explorer returned."""
    explorer = open_explorer(question, **slice_options)
    if interactive if interactive is not None else has_frontend():
        return panel(explorer, method, auto=auto)
    explorer.walk([method])
    return explorer
