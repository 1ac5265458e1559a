"""Hand-made MOSAIC traces and records for the notebook-05 tables and views (no graph, no LLM).

The traces carry the step outputs ``ace_lab.mosaic.method.Mosaic`` records (policy, seed,
``traverse:<d>``, stop), so the views and tables under test read exactly what they read from a
real answer.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from ace_lab.evidence import Trace
from ace_lab.mosaic.analyzer import decide
from ace_lab.mosaic.policy import FIXED_POLICIES, ExplorationPolicy


def path(nodes: list[str], score: float, view: str = "standard", **components: float) -> dict:
    return {
        "nodes": nodes,
        "names": [f"name of {n}" for n in nodes],
        "edges": [f"e:{a}-{b}" for a, b in pairwise(nodes)],
        "region": nodes[0],
        "view": view,
        "score": score,
        "components": {"relevance": 0.5, "hub": 0.1, **components},
    }


def make_trace(
    depths: list[dict[str, Any]],
    *,
    seeds: tuple[str, ...] = ("a", "b"),
    policy: ExplorationPolicy | None = None,
    signals: dict[str, Any] | None = None,
    reason: str = "converged",
) -> Trace:
    """A MOSAIC trace: ``depths`` are the traverse outputs (kept / pruned / gain / ...);
    ``signals`` go through the real analyzer mapping (``decide``) when given."""
    trace = Trace()
    decision = decide(signals) if signals is not None else None
    chosen = decision.policy if decision is not None else (policy or FIXED_POLICIES["medium"])
    meta = decision.to_meta() if decision is not None else {"signals": {}, "raw": {},
                                                             "adjustments": [],
                                                             "fallback": False}  # fmt: skip
    with trace.step("policy") as step:
        step.outputs.update({k: v for k, v in meta.items() if k != "policy"},
                            policy=chosen.to_dict(), label=chosen.label)  # fmt: skip
    with trace.step("seed") as step:
        step.outputs["seeds"] = [{"node": s, "score": 0.9 - 0.1 * i, "view": "question"}
                                 for i, s in enumerate(seeds)]  # fmt: skip
    for i, d in enumerate(depths, start=1):
        with trace.step(f"traverse:{i}", kind="traverse") as step:
            kept, pruned = d.get("kept", []), d.get("pruned", [])
            step.outputs.update(
                depth=i, candidates=d.get("candidates", len(kept) + len(pruned)), kept=kept,
                pruned=pruned, pruned_count=len(pruned),
                connectors=sum(p["view"] == "connector" for p in kept),
                gain=d.get("gain", 0.5), completeness=d.get("completeness", 0.3),
            )  # fmt: skip
    with trace.step("stop") as step:
        step.outputs.update(reason=reason, depth_reached=len(depths))
    return trace


def two_depth_trace(**kw: Any) -> Trace:
    """Seeds a, b. Depth 1 keeps a→c and b→d, prunes a→x and b→c→... (c kept anyway).
    Depth 2 keeps the connector a→c→d (joins regions a and b) and b→d→e, prunes a→c→y."""
    return make_trace(
        [
            {
                "kept": [path(["a", "c"], 0.8), path(["b", "d"], 0.7)],
                "pruned": [path(["a", "x"], 0.2), path(["b", "c"], 0.1)],
                "gain": 1.0,
                "completeness": 0.2,
                "candidates": 6,
            },
            {
                "kept": [path(["a", "c", "d"], 0.6, "connector"), path(["b", "d", "e"], 0.5)],
                "pruned": [path(["a", "c", "y"], 0.05)],
                "gain": 0.1,
                "completeness": 0.5,
                "candidates": 9,
            },
        ],
        **kw,
    )


def record(method: str, qid: str, qtype: str = "bridge", **stats: Any) -> dict[str, Any]:
    """An evaluation record carrying ``stats`` (policy defaults to Fixed Medium's)."""
    policy = stats.pop("policy", FIXED_POLICIES["medium"].to_dict())
    em = stats.pop("em", None)
    base = {"paths_evaluated": 10, "evidence_retained": 8, "depth_reached": 2,
            "stop_reason": "converged", "connectors_used": 0}  # fmt: skip
    return {"id": qid, "method": method, "type": qtype, "em": em, "f1": em,
            "stats": base | stats | {"policy": policy}}  # fmt: skip
