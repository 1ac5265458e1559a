"""Hand-made MOSAIC traces and records for the notebook-05 tables and views (no graph, no LLM).

The traces carry the typed payloads ``ace_lab.mosaic.method.Mosaic`` records (policy, seed,
``traverse:<d>``, stop), so the views and tables under test read exactly what they read from a
real answer.
"""

from __future__ import annotations

import random
from itertools import pairwise
from typing import Any

from ace_lab.evidence import Trace
from ace_lab.mosaic.analyzer import decide
from ace_lab.mosaic.policy import FIXED_POLICIES, ExplorationPolicy
from ace_lab.mosaic.steps import (
    ExplorationChoice,
    ExplorationStop,
    ScoredPath,
    SeedPick,
    SeedSelection,
    TraversalDepth,
)


def path(nodes: list[str], score: float, view: str = "standard", **components: float) -> ScoredPath:
    return ScoredPath(
        nodes=tuple(nodes),
        score=score,
        names=tuple(f"name of {n}" for n in nodes),
        edges=tuple(f"e:{a}-{b}" for a, b in pairwise(nodes)),
        region=nodes[0],
        view=view,
        components={"relevance": 0.5, "hub": 0.1, **components},
    )


def make_trace(
    depths: list[dict[str, Any]],
    *,
    seeds: tuple[str, ...] = ("a", "b"),
    policy: ExplorationPolicy | None = None,
    signals: dict[str, Any] | None = None,
    reason: str = "converged",
) -> Trace:
    """A MOSAIC trace: ``depths`` are the traverse payloads' fields (kept / pruned / gain /
    ...); ``signals`` go through the real analyzer mapping (``decide``) when given."""
    trace = Trace()
    chosen = policy or FIXED_POLICIES["medium"]
    choice = (
        decide(signals).payload()
        if signals is not None
        else ExplorationChoice(chosen.to_dict(), chosen.label, source="fixed")
    )
    with trace.step("policy") as step:
        step.record(choice)
    with trace.step("seed") as step:
        picks = tuple(SeedPick(s, round(0.9 - 0.1 * i, 4)) for i, s in enumerate(seeds))
        step.record(SeedSelection(seeds=picks))
    for i, d in enumerate(depths, start=1):
        with trace.step(f"traverse:{i}", kind="traverse") as step:
            kept, pruned = tuple(d.get("kept", ())), tuple(d.get("pruned", ()))
            step.record(
                TraversalDepth(
                    depth=i,
                    candidates=d.get("candidates", len(kept) + len(pruned)),
                    kept=kept,
                    pruned=pruned,
                    pruned_count=len(pruned),
                    connectors=sum(p.view == "connector" for p in kept),
                    gain=d.get("gain", 0.5),
                    completeness=d.get("completeness", 0.3),
                )
            )
    with trace.step("stop") as step:
        step.record(ExplorationStop(reason=reason, rounds=len(depths)))
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
    base = {
        "paths_evaluated": 10,
        "evidence_retained": 8,
        "depth_reached": 2,
        "stop_reason": "converged",
        "connectors_used": 0,
    }
    return {
        "id": qid,
        "method": method,
        "type": qtype,
        "em": em,
        "f1": em,
        "stats": base | stats | {"policy": policy},
    }


def slice_records(n: int = 40, seed: int = 1) -> list[dict]:
    """``n`` random MOSAIC records with clamped policies, and one Fixed Wide record."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        raw = {
            k: rng.choice(v)
            for k, v in {
                "seed_count": [5, 8, 12],
                "max_depth": [2, 3, 4],
                "evidence_budget": [8, 12, 16],
                "connectors": [True, False],
                "targets": [[], ["X"], ["Y", "Z"]],
            }.items()
        }
        policy = ExplorationPolicy.clamp(raw)[0].to_dict()
        out.append(
            record(
                "mosaic",
                f"q{i}",
                "bridge" if i % 2 else "comparison",
                policy=policy,
                depth_reached=rng.randint(1, policy["max_depth"]),
                connectors_used=int(policy["connectors"] and i % 3 == 0),
            )
        )
    return [*out, record("mosaic-fixed:wide", "q0")]
