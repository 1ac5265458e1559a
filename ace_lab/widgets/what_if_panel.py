"""The what-if explorer: one question, a policy's controls, and its answer as they move.

:func:`what_if` opens a question of a slice (or a free-text one) and returns an ipywidgets panel:
a tab per method (MOSAIC's width or budget × depth, ArcRAG's stages, retries, passes and graph
family, ACE's topology, token budget and backbone; ``ace_lab.widgets.knobs`` turns them into a
registry name).
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

from ace_lab.arc.budget import Budget
from ace_lab.ask import text_question
from ace_lab.config import DEFAULT_TIER, load_settings
from ace_lab.data import load_slice, pick_questions
from ace_lab.evidence import Answer
from ace_lab.llm import get_llm
from ace_lab.mosaic.policy import BUDGET_MATCHED_DEFAULT
from ace_lab.registry import canonical_name, parse
from ace_lab.registry.arc import variant_tokens
from ace_lab.retrieval import RetrievalGraph
from ace_lab.widgets import knobs
from ace_lab.widgets.stepper import Pager
from ace_lab.widgets.what_if import Outcome, Probe, WhatIf, compare
from ace_lab.widgets.what_if_views import (
    answer_html,
    change_html,
    change_view,
    iframe,
    probe_html,
)

#: The tabs of the panel, in order.
FAMILIES = ("MOSAIC", "ArcRAG", "ACE")


def has_frontend() -> bool:
    """Whether a notebook frontend can show widgets (an IPython kernel; papermill runs one too,
    so notebooks pass their ``interactive`` parameter rather than rely on this)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _slider(description: str, low: int, high: int, value: int) -> Any:
    import ipywidgets as w

    return w.IntSlider(
        value=value, min=low, max=high, description=description, continuous_update=False
    )


def _toggles(options: tuple[str, ...], value: str, description: str = "") -> Any:
    import ipywidgets as w

    return w.ToggleButtons(options=list(options), value=value, description=description)


class Controls:
    """Every control of the panel and the registry name they stand for."""

    def __init__(self) -> None:
        import ipywidgets as w

        ranges, arc = knobs.mosaic_ranges(), Budget()
        self.width = _toggles(knobs.MOSAIC_WIDTHS, "analyzer", "policy")
        self.budget = _slider("budget", *ranges["budget"], 12)
        self.depth = _slider("depth", *ranges["depth"], 3)
        self.head = w.Dropdown(options=list(knobs.ARC_HEAD_CHOICES), description="stages")
        self.retries = _slider("retries", 1, 5, arc.retries)
        self.passes = _slider("passes", 1, arc.passes, arc.passes)
        self.family = _toggles(knobs.ARC_FAMILY_CHOICES, "typed", "graph")
        self.strict = w.Checkbox(value=False, description="strict (no template, no fallback)")
        self.grammar = w.Checkbox(value=False, description="grammar-constrained Cypher")
        self.topology = _toggles(knobs.ACE_TOPOLOGIES, "adaptive", "topology")
        self.backbone = _toggles(knobs.ACE_BACKBONES, "hirag", "backbone")
        low, high, step = knobs.ACE_BUDGET_RANGE
        self.ace_budget = w.IntSlider(
            value=knobs.ACE_DEFAULT_BUDGET,
            min=low,
            max=high,
            step=step,
            description="tokens",
            continuous_update=False,
        )
        self.tabs = w.Tab(
            children=[
                w.VBox([self.width, self.budget, self.depth]),
                w.VBox(
                    [self.head, self.retries, self.passes, self.family, self.strict, self.grammar]
                ),
                w.VBox([self.topology, self.ace_budget, self.backbone]),
            ]
        )
        for i, title in enumerate(FAMILIES):
            self.tabs.set_title(i, title)
        self.all = (
            self.width,
            self.budget,
            self.depth,
            self.head,
            self.retries,
            self.passes,
            self.family,
            self.strict,
            self.grammar,
            self.topology,
            self.ace_budget,
            self.backbone,
        )

    def name(self) -> str:
        """The registry name of the open tab's settings."""
        family = FAMILIES[self.tabs.selected_index or 0]
        if family == "MOSAIC":
            return knobs.mosaic_name(self.width.value, self.budget.value, self.depth.value)
        if family == "ArcRAG":
            return knobs.arc_name(
                self.head.value,
                self.retries.value,
                self.passes.value,
                self.family.value,
                strict=self.strict.value,
                grammar=self.grammar.value,
            )
        return knobs.ace_name(self.topology.value, self.backbone.value, self.ace_budget.value)

    def select(self, name: str) -> None:
        """Open the tab of method ``name`` with its settings (the panel's first setting)."""
        parts = parse(canonical_name(name))
        if parts.head.startswith("mosaic"):
            if parts.head == "mosaic-budget-matched":
                budget, depth = (parts.variant or "x".join(map(str, BUDGET_MATCHED_DEFAULT))).split(
                    "x"
                )
                self.budget.value, self.depth.value = int(budget), int(depth)
            widths = {"mosaic": "analyzer", "mosaic-budget-matched": "budget"}
            width = widths.get(parts.head, parts.variant)
            self.width.value = "signals" if parts.variant == "signals" else width
            self.tabs.selected_index = 0
        elif parts.head in knobs.ARC_HEAD_CHOICES:
            switches, label = variant_tokens(str(parts), parts.variant)
            budget = Budget.parse(label, Budget()) if label else Budget()
            self.strict.value, self.grammar.value = "strict" in switches, "grammar" in switches
            self.head.value, self.family.value = parts.head, parts.family or "typed"
            self.retries.value, self.passes.value = budget.retries, budget.passes
            self.tabs.selected_index = 1
        else:
            self.backbone.value = parts.family or "hirag"
            self.topology.value = knobs.ace_topology(parts.head, parts.variant)
            self.ace_budget.value = knobs.ace_budget(parts.variant)
            self.tabs.selected_index = 2

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
