"""Any method's answer, stage by stage: one ``Stage`` per trace step (what it decided, the
evidence it added or removed, its cost), evidence tables, cost frames and an evidence subgraph.

Everything here reads the answer's ``Trace`` and nothing else, so it works for every method that
records its steps. What a step decided is its typed payload (``step.payload``), shown by the
payload's own ``line()``; nothing here reads a method's internals, and of a step's name only
the branch a composed method's source took it for (``depth/traverse:1``: the ``depth branch``
group, :func:`ace_lab.trace.step_branch`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab import viz
from ace_lab.evidence import Answer, Context, Evidence, Step
from ace_lab.retrieval import RetrievalGraph
from ace_lab.steps import StepPayload
from ace_lab.trace import step_branch
from ace_lab.widgets.views import Groups, StepView, group_of, step_groups, step_html, view_for


@dataclass
class Stage:
    """One trace step as the stepper shows it."""

    name: str
    kind: str
    summary: str  # the payload's line, else the step's notes, else what it did to the evidence
    step: Step
    evidence: list[Evidence] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  # ids no earlier step had added
    removed: list[tuple[str, str]] = field(default_factory=list)  # (id, why)
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    #: The pass, subplan or depth the step belongs to (its report's STEP_GROUPS), or for a
    #: composed method's branch step, its branch (``depth branch``).
    group: str = ""

    @property
    def payload(self) -> StepPayload | None:
        return self.step.payload

    @property
    def findings(self) -> list[str]:
        """The step's notes and structured-output repairs, one line each."""
        return [f"repair {r.line()}" for r in self.step.repairs] + list(self.step.notes)


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
    """What the step decided (its payload's line), else its notes, else its evidence change."""
    if step.payload is not None:
        return step.payload.line()
    if step.notes:
        return "; ".join(step.notes)
    parts = []
    if step.added:
        tokens = Context(step.added).tokens
        parts.append(f"{len(step.added)} items, {len(new)} new ({tokens} tokens)")
    if step.removed:
        parts.append(f"{len(step.removed)} removed")
    return ", ".join(parts) or step.kind


def stages(answer: Answer, groups: Groups | None = None) -> list[Stage]:
    """One stage per trace step, each with the evidence it added or removed, its cost and its
    group (``groups``, default the method's ``STEP_GROUPS``: an ArcRAG pass and subplan, a
    MOSAIC depth; a branch step's is its branch, so the stepper can step through one)."""
    groups = step_groups(answer.method) if groups is None else groups
    out: list[Stage] = []
    seen: set[str] = set()
    for position, step in enumerate(answer.trace.steps):
        new = [e.id for e in step.added if e.id not in seen]
        seen |= set(new)
        shown = list(step.added)
        if step.removed and not shown:  # a pure removal: show what is left
            shown = answer.trace.working_set(position + 1)
        removed = [(e.id, why) for e, why in step.removed]
        summary = _summary(step, new)
        branch = step_branch(step.name)
        group = f"{branch} branch" if branch else group_of(step.payload, groups)
        cost = _cost(step)
        out.append(
            Stage(step.name, step.kind, summary, step, shown, new, removed, group=group, **cost)
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
    fig.suptitle(f"{answer.method or 'answer'}: cost per step")
    fig.tight_layout()
    return fig


def print_stages(
    answer: Answer,
    show: Callable[[Any], None] = print,
    views: Mapping[type[StepPayload], StepView] | None = None,
) -> None:
    """Every stage in order, as text and tables (the widget-free stepper). With ``views`` (a
    method report's ``STEP_VIEWS``), a step whose payload type has a view also shows that
    HTML fragment (``show`` gets an ``IPython.display.HTML``). Each new group (an ArcRAG pass
    or subplan, a MOSAIC depth) is announced once."""
    group = ""
    for stage in stages(answer):
        if stage.group and stage.group != group:
            print(f"\n----- {stage.group} -----")
        group = stage.group or group
        print(f"\n=== {stage.name}: {stage.summary}")
        cost = f"{stage.seconds:.2f}s, {stage.input_tokens} in / {stage.output_tokens} out tokens"
        print(f"    cost: {cost}")
        for line in stage.findings:
            print(f"    {line}")
        if stage.added and len(stage.added) < len(stage.evidence):
            print(f"    new: {stage.added}")
        for item_id, why in stage.removed:
            print(f"    removed {item_id}: {why}")
        if views and view_for(stage.payload, views) is not None:
            from IPython.display import HTML

            show(HTML(step_html(stage.step, views, heading=False)))
        if stage.evidence:
            show(evidence_frame(stage.evidence))


def evidence_subgraph(
    graph: RetrievalGraph, answer: Answer, name: str, figures_dir: Path | str
) -> Path:
    """A pyvis view of the graph nodes behind every item the answer's steps added, coloured by
    branch (base, Depth, Breadth, both, or another method's branch) with a legend; nodes of
    removed items are pale and dashed, their tooltip giving the reason."""
    title = f"{viz.display_name(answer.method) if answer.method else 'answer'}: evidence by branch"
    view = viz.evidence_view(
        graph.tables, answer.trace.all_evidence(), answer.trace.removed(), title=title
    )
    return viz.save_html(view, name, figures_dir)
