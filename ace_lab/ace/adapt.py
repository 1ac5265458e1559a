"""Task-conditioned adaptation C̃ = Adapt_y(C*; π): what to keep, in which order, within budget.

1. **Bridge protection.** Evidence on a bridge path is never dropped by pruning: the path
   items themselves, entities on a path, and relations whose two ends are both on one.
2. **Profile suppression** (policy switch ``drop_reports``, by default the pruning switch).
   The QA profile drops report-level evidence (community reports): multi-hop QA needs
   entities, relations and passages, and reports conflict with specific facts more often than
   they add them. The QFS profile keeps every resolution.
3. **Semantic pruning** (policy switch ``pruning``): evidence whose best cosine similarity to
   the query and the branch queries is below ``prune_threshold`` is dropped, unless
   bridge-protected.
4. **Budget.** Survivors are admitted in this order until ``budget_tokens`` is used (2,400 by
   default; the registry's ``:b<N>`` variant sets it, ``:b1500`` being the shared context
   budget of every baseline, ``ace_lab.evidence.CONTEXT_BUDGET_TOKENS``): protected
   items, then by the profile's kind priority (QA: entity, relation, path, passage, summary,
   report; QFS: report, summary, passage, entity, relation, path), then by similarity. The
   admitted items are rendered in block order (round, branch) and kind priority inside a block.

Every drop is returned with its reason, so the trace shows what adaptation removed and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ace_lab.ace.policy import ContextPolicy
from ace_lab.bounded import Bounded, bounded
from ace_lab.embed import Embedder, embed
from ace_lab.evidence import BLOCK_ORDER, Context, Evidence

KIND_PRIORITY = {
    "qa": ("entity", "relation", "path", "passage", "row", "summary", "report", "community"),
    "qfs": ("report", "community", "summary", "passage", "entity", "relation", "path", "row"),
}
REPORT_KINDS = ("report", "community")


@dataclass(frozen=True)
class AdaptConfig(Bounded):
    """How the merged evidence C* becomes the generation-ready context C̃."""

    prune_threshold: float = bounded(
        0.15,
        lo=-1.0,
        hi=1.0,
        help="semantic pruning drops items whose best cosine to the queries is below this",
    )
    budget_tokens: int = bounded(2400, lo=1, hi=100_000, help="token budget of the final context")


@dataclass
class Adapted:
    kept: list[Evidence]
    dropped: list[tuple[Evidence, str]] = field(default_factory=list)
    similarity: dict[str, float] = field(default_factory=dict)

    @property
    def context(self) -> Context:
        return Context(self.kept)


def bridge_nodes(items: Sequence[Evidence]) -> set[str]:
    return {n for e in items if e.kind == "path" for n in e.meta.get("nodes", ())}


def on_bridge(item: Evidence, nodes: set[str]) -> bool:
    if item.kind == "path":
        return True
    ends = item.meta.get("nodes", ())
    if item.kind in ("entity", "summary"):
        return item.id in nodes
    if item.kind == "relation":
        return len(ends) == 2 and all(n in nodes for n in ends)
    return False


def similarities(
    items: Sequence[Evidence], queries: Sequence[str], embedder: Embedder
) -> dict[str, float]:
    """Best cosine similarity of each item to any of ``queries`` (MiniLM vectors, cached)."""
    queries = [q for q in dict.fromkeys(queries) if q and q.strip()]
    if not items or not queries:
        return {}
    vectors = embed([e.text for e in items] + queries, embedder, progress=False)
    sims = vectors[: len(items)] @ vectors[len(items) :].T
    return {e.id: float(s) for e, s in zip(items, np.max(sims, axis=1), strict=True)}


def adapt(
    items: Sequence[Evidence],
    policy: ContextPolicy,
    queries: Sequence[str],
    embedder: Embedder,
    config: AdaptConfig | None = None,
) -> Adapted:
    """Adapt merged evidence ``items`` for ``policy``; ``queries``: q first, then branch queries."""
    config = config or AdaptConfig()
    priority = KIND_PRIORITY[policy.profile]
    nodes = bridge_nodes(items)
    sims = similarities(items, queries, embedder)
    survivors: list[Evidence] = []
    dropped: list[tuple[Evidence, str]] = []
    for item in items:
        protected = on_bridge(item, nodes)
        if policy.profile == "qa" and policy.reports_dropped and item.kind in REPORT_KINDS:
            dropped.append((item, "qa profile: report-level evidence suppressed"))
        elif policy.pruning and not protected and sims.get(item.id, 1.0) < config.prune_threshold:
            dropped.append(
                (
                    item,
                    f"semantic pruning: similarity {sims[item.id]:.2f} < {config.prune_threshold}",
                )
            )
        else:
            survivors.append(item)

    def admission(item: Evidence) -> tuple[int, int, float]:
        rank = priority.index(item.kind) if item.kind in priority else len(priority)
        return (0 if on_bridge(item, nodes) else 1, rank, -sims.get(item.id, 0.0))

    kept_ids: set[str] = set()
    admitted = Context([])
    for item in sorted(survivors, key=admission):
        trial = Context([*admitted.evidence, item])
        if trial.tokens <= config.budget_tokens:
            admitted = trial
            kept_ids.add(item.id)
        else:
            dropped.append((item, f"token budget {config.budget_tokens} reached"))

    def layout(item: Evidence) -> tuple[int, int, int]:
        block = BLOCK_ORDER.index(item.branch) if item.branch in BLOCK_ORDER else len(BLOCK_ORDER)
        rank = priority.index(item.kind) if item.kind in priority else len(priority)
        return (item.round, block, rank)

    kept = sorted((e for e in survivors if e.id in kept_ids), key=layout)
    return Adapted(kept, dropped, sims)
