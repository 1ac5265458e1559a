"""Step through one ACE answer stage by stage: tables, diffs, costs, an evidence subgraph, and an
ipywidgets stepper on top of them.

The pipeline runs once (LLM calls are cached, so rerunning a question is free); the stepper then
walks its recorded stages C_base → router label → gap analysis → branch queries → ΔC per branch →
merged C* → adapted C̃ → answer. Everything here also works without widgets (``print_stages``),
which is what the notebook does under papermill.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.eval.runner import cold_wall_s
from ace_lab.evidence import Answer, Context, Evidence, Step
from ace_lab.methods.retrieval_graph import RetrievalGraph

BRANCH_COLOURS = {"base": "#9e9e9e", "depth": "#1f77b4", "breadth": "#ff7f0e", "both": "#8e44ad"}
DROPPED_COLOUR = "#e0e0e0"


@dataclass
class Stage:
    """One stage as the stepper shows it."""

    name: str
    summary: str
    evidence: list[Evidence] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[tuple[str, str]] = field(default_factory=list)  # (id, why)
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0


def provenance_colour(item: Evidence) -> str:
    """Colour by where the item was found: base, one branch, or both branches."""
    found = {p.split(":", 1)[1] for p in item.meta.get("provenance", [f"r0:{item.branch}"])}
    branches = found - {"base"}
    if len(branches) > 1:
        return BRANCH_COLOURS["both"]
    if branches:
        return BRANCH_COLOURS[branches.pop()]
    return BRANCH_COLOURS.get(item.branch, BRANCH_COLOURS["base"])


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
    """``evidence_frame`` with each row tinted by its provenance colour (for notebooks)."""
    frame = evidence_frame(items)
    colours = [provenance_colour(e) for e in items]

    def tint(row: pd.Series) -> list[str]:
        return [f"border-left: 6px solid {colours[row.name]}"] + [""] * (len(row) - 1)

    return frame.style.apply(tint, axis=1)


def _step(answer: Answer, name: str) -> Step | None:
    return next((s for s in answer.trace.steps if s.name == name), None)


def _cost(step: Step | None) -> dict[str, Any]:
    if step is None:
        return {}
    return {
        "seconds": step.elapsed,
        "input_tokens": sum(c.response_prompt_tokens for c in step.llm_calls),
        "output_tokens": sum(c.response_completion_tokens for c in step.llm_calls),
    }


def stages(answer: Answer) -> list[Stage]:
    """The recorded stages of an ACE answer, each with what it added or removed."""
    meta, rec = answer.meta, answer.meta["stages"]
    base, merged, adapted = rec["base"], rec["merged"], rec["adapted"]
    policy, plan = meta["policy"], meta["plan"]
    out = [
        Stage(
            "C_base",
            f"{len(base)} items from the backbone ({Context(base).tokens} tokens)",
            base,
            [e.id for e in base],
            **_cost(_step(answer, "retrieve:base")),
        )
    ]
    route = _step(answer, "route")
    label = meta.get("topology")
    out.append(
        Stage(
            "policy",
            (f"router label {label} → " if label else "")
            + f"policy {policy['label']}"
            + (" (router fell back)" if route and route.outputs.get("fallback") else ""),
            **_cost(route),
        )
    )
    plan_step = _step(answer, "plan")
    analysis = plan["analysis"] or ("(gap diagnosis off)" if not policy["gap"] else "(none)")
    out.append(Stage("gap analysis", analysis, **_cost(plan_step)))
    queries = "; ".join(f"{b}: {q}" for b, q in plan["queries"].items())
    fallback = " — planner fallback: one local retrieval with q" if plan["fallback"] else ""
    out.append(Stage("branch queries", queries + fallback))
    seen = {e.id for e in base}
    for branch, items in rec["increments"].items():
        new = [e.id for e in items if e.id not in seen]
        seen |= set(new)
        out.append(
            Stage(
                f"ΔC {branch}",
                f"{len(items)} items, {len(new)} new",
                items,
                new,
                **_cost(_step(answer, f"retrieve:{branch}")),
            )
        )
    dups = sum(len(e.meta.get("provenance", [])) > 1 for e in merged)
    out.append(Stage("C* merged", f"{len(merged)} items, {dups} found more than once", merged))
    kept = {e.id for e in adapted}
    out.append(
        Stage(
            "C̃ adapted",
            f"{len(adapted)} kept ({Context(adapted).tokens} tokens), "
            f"{len(rec['dropped'])} dropped",
            adapted,
            removed=[(e.id, why) for e, why in rec["dropped"] if e.id not in kept],
            **_cost(_step(answer, "adapt")),
        )
    )
    out.append(Stage("answer", answer.text, **_cost(_step(answer, "generate"))))
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
                "cold_seconds": cold_wall_s(s.elapsed, s.llm_calls),
                "llm_calls": len(s.llm_calls),
                "cached": sum(c.cache_hit for c in s.llm_calls),
                **{k: v for k, v in _cost(s).items() if k != "seconds"},
            }
            for s in answer.trace.steps
        ]
    )


def print_stages(answer: Answer, show: Callable[[Any], None] = print) -> None:
    """Every stage in order, as text and tables (the widget-free stepper)."""
    for stage in stages(answer):
        print(f"\n=== {stage.name}: {stage.summary}")
        cost = f"{stage.seconds:.2f}s, {stage.input_tokens} in / {stage.output_tokens} out tokens"
        print(f"    cost: {cost}")
        if stage.added and stage.name != "C_base":
            print(f"    added: {stage.added}")
        for item_id, why in stage.removed:
            print(f"    removed {item_id}: {why}")
        if stage.evidence:
            show(evidence_frame(stage.evidence))


def evidence_subgraph(
    graph: RetrievalGraph, answer: Answer, name: str, figures_dir: Path | str
) -> Path:
    """A pyvis view of the graph nodes behind the merged evidence, coloured by branch
    (grey base, blue Depth, orange Breadth, purple both); dropped items are pale."""
    from ace_lab import viz

    merged = answer.meta["stages"]["merged"]
    dropped = {e.id: why for e, why in answer.meta["stages"]["dropped"]}
    colour: dict[str, str] = {}
    for item in merged:
        for node in item.meta.get("nodes", ()):
            if node in graph.nodes and node not in colour:
                colour[node] = DROPPED_COLOUR if item.id in dropped else provenance_colour(item)
    nodes = graph.tables.nodes[graph.tables.nodes["id"].isin(colour)]
    edges = graph.tables.edges
    edges = edges[edges["source"].isin(colour) & edges["target"].isin(colour)]
    net = viz.pyvis_network(
        nodes, edges, colour=colour, heading=f"{answer.meta['method']}: evidence by branch"
    )
    return viz.save_html(net, name, figures_dir)


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
