"""Step through any method's answer step by step: tables, diffs, costs, an evidence subgraph,
and an ipywidgets stepper on top of them.

Everything here reads the answer's ``Trace`` and nothing else, so it works for every method that
records its steps: a baseline shows retrieve → generate; ACE shows C_base → router label →
policy → gap analysis and branch queries → ΔC per branch → merged C* → adapted C̃ → answer.
The pipeline runs once (LLM calls are cached, so rerunning a question is free). Everything also
works without widgets (``print_stages``), which is what the notebook does under papermill.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab import viz
from ace_lab.evidence import Answer, Context, Evidence, Step
from ace_lab.retrieval import RetrievalGraph


@dataclass
class Stage:
    """One trace step as the stepper shows it."""

    name: str
    kind: str
    summary: str
    evidence: list[Evidence] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  # ids no earlier step had added
    removed: list[tuple[str, str]] = field(default_factory=list)  # (id, why)
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0


def provenance_colour(item: Evidence) -> str:
    """Colour by where the item was found: base, one branch, or both branches."""
    return viz.group_colour(viz.evidence_branch(item), viz.BRANCH_COLOURS)


def evidence_frame(items: Sequence[Evidence], width: int = 110) -> pd.DataFrame:
    """One row per item: id, kind, level, round, branch, provenance, score and a text preview."""
    return pd.DataFrame(
        [
            {
                "id": e.id,
                "kind": e.kind,
                "level": e.level,
                "round": e.round,
                "branch": e.branch,
                "provenance": " ".join(e.meta.get("provenance", [])),
                "score": round(e.score, 4),
                "tokens": e.tokens,
                "text": e.text if len(e.text) <= width else e.text[: width - 1] + "…",
            }
            for e in items
        ],
        columns=["id", "kind", "level", "round", "branch", "provenance", "score", "tokens", "text"],
    )


def styled(items: Sequence[Evidence]) -> Any:
    """``evidence_frame`` with each row tinted by its provenance colour (for notebooks).

    Cell text is HTML-escaped: a Styler, unlike a plain DataFrame, renders cells as raw HTML,
    and the text comes from the corpus."""
    frame = evidence_frame(items)
    colours = [provenance_colour(e) for e in items]

    def tint(row: pd.Series) -> list[str]:
        return [f"border-left: 6px solid {colours[row.name]}"] + [""] * (len(row) - 1)

    return frame.style.format(escape="html").apply(tint, axis=1)


def _cost(step: Step) -> dict[str, Any]:
    return {
        "seconds": step.elapsed,
        "input_tokens": sum(c.response_prompt_tokens for c in step.llm_calls),
        "output_tokens": sum(c.response_completion_tokens for c in step.llm_calls),
    }


def _summary(step: Step, new: list[str]) -> str:
    """The step's own notes, else what it did to the evidence (or its answer)."""
    if step.notes:
        return "; ".join(step.notes)
    if step.kind == "generate" and "answer" in step.outputs:
        return f"answer: {step.outputs['answer']}"
    parts = []
    if step.added:
        tokens = Context(step.added).tokens
        parts.append(f"{len(step.added)} items, {len(new)} new ({tokens} tokens)")
    if step.removed:
        parts.append(f"{len(step.removed)} removed")
    return ", ".join(parts) or step.kind


def stages(answer: Answer) -> list[Stage]:
    """One stage per trace step, each with the evidence it added or removed and its cost."""
    out: list[Stage] = []
    seen: set[str] = set()
    for position, step in enumerate(answer.trace.steps):
        new = [e.id for e in step.added if e.id not in seen]
        seen |= set(new)
        shown = list(step.added)
        if step.removed and not shown:  # a pure removal: show what is left
            shown = answer.trace.working_set(position + 1)
        out.append(
            Stage(
                step.name,
                step.kind,
                _summary(step, new),
                shown,
                new,
                [(e.id, why) for e, why in step.removed],
                **_cost(step),
            )
        )
    return out


def cost_frame(answer: Answer) -> pd.DataFrame:
    """Per trace step: seconds, cold-cache seconds, LLM calls (and how many were cached) and
    cold-cache input/output tokens. ``cold_seconds`` replaces each cached call's lookup time by
    the model time recorded with the response; NaN where that was not recorded."""
    return pd.DataFrame(
        [
            {
                "step": s.name,
                "seconds": round(s.elapsed, 3),
                "cold_seconds": s.cold_s,
                "llm_calls": len(s.llm_calls),
                "cached": sum(c.cache_hit for c in s.llm_calls),
                **{k: v for k, v in _cost(s).items() if k != "seconds"},
            }
            for s in answer.trace.steps
        ]
    )


def stage_cost_figure(answer: Answer) -> Any:
    """Two bar charts per trace step: seconds (cold-cache where the cached calls' model time
    is known, else measured) and cold-cache input/output tokens."""
    import matplotlib.pyplot as plt

    costs = cost_frame(answer)
    costs["plotted_seconds"] = costs["cold_seconds"].fillna(costs["seconds"])
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.9 + 0.32 * max(len(costs), 3)))
    costs.plot.barh(x="step", y="plotted_seconds", ax=axes[0], legend=False, color="#1f77b4")
    cached = int(costs["cached"].sum())
    axes[0].set_xlabel("seconds" + (f" ({cached} cached LLM calls)" if cached else ""))
    costs.plot.barh(x="step", y=["input_tokens", "output_tokens"], stacked=True, ax=axes[1])
    axes[1].set_xlabel("tokens (cold-cache)")
    axes[1].set_ylabel("")
    for ax in axes:
        ax.invert_yaxis()
    fig.suptitle(f"{answer.meta.get('method', 'answer')}: cost per step")
    fig.tight_layout()
    return fig


def print_stages(answer: Answer, show: Callable[[Any], None] = print) -> None:
    """Every stage in order, as text and tables (the widget-free stepper)."""
    for stage in stages(answer):
        print(f"\n=== {stage.name}: {stage.summary}")
        cost = f"{stage.seconds:.2f}s, {stage.input_tokens} in / {stage.output_tokens} out tokens"
        print(f"    cost: {cost}")
        if stage.added and len(stage.added) < len(stage.evidence):
            print(f"    new: {stage.added}")
        for item_id, why in stage.removed:
            print(f"    removed {item_id}: {why}")
        if stage.evidence:
            show(evidence_frame(stage.evidence))


def evidence_subgraph(
    graph: RetrievalGraph, answer: Answer, name: str, figures_dir: Path | str
) -> Path:
    """A pyvis view of the graph nodes behind every item the answer's steps added, coloured by
    branch (base, Depth, Breadth, both, or another method's branch) with a legend; nodes of
    removed items are pale and dashed, their tooltip giving the reason."""
    title = f"{answer.meta.get('method', 'answer')}: evidence by branch"
    view = viz.evidence_view(
        graph.tables, answer.trace.all_evidence(), answer.trace.removed(), title=title
    )
    return viz.save_html(view, name, figures_dir)


def ace_method(
    graph: RetrievalGraph,
    llm: Any,
    mode: str = "adaptive",
    *,
    gap: bool = True,
    depth: bool = True,
    breadth: bool = True,
    pruning: bool = True,
    backbone: str = "hirag",
) -> Any:
    """The ACE method for a stepper mode: ``full``, ``adaptive`` or ``manual`` (the toggles)."""
    from ace_lab.ace.backbone import BACKBONES
    from ace_lab.ace.method import AceConfig, AceGraphRAG
    from ace_lab.ace.policy import ContextPolicy

    if mode == "manual":
        branches = tuple(b for b, on in (("depth", depth), ("breadth", breadth)) if on)
        config = AceConfig(
            mode="fixed", policy=ContextPolicy(gap=gap, branches=branches, pruning=pruning)
        )
    else:
        config = AceConfig(mode=mode)  # type: ignore[arg-type]
    return AceGraphRAG(
        BACKBONES[backbone](graph), llm, config, name=f"ace-{mode}", embedder=graph.embedder
    )


def policy_stepper(graph: RetrievalGraph, llm: Any, questions: Sequence[Any]) -> Any:
    """An ipywidgets UI: pick a question and a mode (or toggle gap / branches / pruning), run,
    then step through the stages with Back / Next."""
    import ipywidgets as w
    from IPython.display import display

    question = w.Dropdown(
        options=[(f"{q.id[:10]} · {q.question[:80]}", i) for i, q in enumerate(questions)],
        description="question",
        layout=w.Layout(width="95%"),
    )
    mode = w.ToggleButtons(options=["full", "adaptive", "manual"], value="adaptive")
    toggles = {
        name: w.Checkbox(value=True, description=name, indent=False)
        for name in ("gap", "depth", "breadth", "pruning")
    }
    run, back, forward = (
        w.Button(description="Run"),
        w.Button(description="◀"),
        w.Button(description="▶"),
    )
    position = w.IntSlider(min=0, max=0, description="stage")
    out = w.Output()
    state: dict[str, Any] = {"stages": []}

    def show(_: Any = None) -> None:
        out.clear_output()
        with out:
            if not state["stages"]:
                print("press Run")
                return
            stage = state["stages"][position.value]
            print(f"{stage.name}: {stage.summary}")
            print(f"{stage.seconds:.2f}s · {stage.input_tokens} in / {stage.output_tokens} out")
            for item_id, why in stage.removed:
                print(f"  removed {item_id}: {why}")
            if stage.evidence:
                display(styled(stage.evidence))

    def on_run(_: Any) -> None:
        for toggle in toggles.values():
            toggle.disabled = mode.value != "manual"
        out.clear_output()
        with out:
            print("running … (cached stages return at once)")
        method = ace_method(graph, llm, mode.value, **{k: t.value for k, t in toggles.items()})
        try:
            answer = method.answer(questions[question.value].question)
        except ValueError as err:  # e.g. both branches switched off
            out.clear_output()
            with out:
                print(f"invalid policy: {err}")
            return
        state["stages"], state["answer"] = stages(answer), answer
        position.max, position.value = len(state["stages"]) - 1, 0
        show()

    run.on_click(on_run)
    back.on_click(lambda _: setattr(position, "value", max(0, position.value - 1)))
    forward.on_click(lambda _: setattr(position, "value", min(position.max, position.value + 1)))
    position.observe(show, names="value")
    ui = w.VBox(
        [
            question,
            mode,
            w.HBox(list(toggles.values())),
            w.HBox([run, back, position, forward]),
            out,
        ]
    )
    show()
    return ui
