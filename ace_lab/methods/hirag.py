"""HiRAG retrieval over the hierarchical graph: ``hi``, ``hi_local`` and ``hi_global`` contexts.

Each mode is a context builder that returns ``Evidence`` without answering (HiRAG's
``only_need_context``); ACE's Depth and Breadth branches are exactly these builders.

- ``hi_local``: the query's top base entities (hybrid search over names and descriptions),
  the relations at those entities (plus the best relation-index hits), and the source passages
  that mention most of them.
- ``hi_global``: the summary entities the seed entities belong to (plus summary hits), and the
  community reports of the seed entities' Leiden communities (plus the best report hits).
- ``hi``: both, plus HiRAG's bridge paths — shortest paths over the relation and summary layers
  linking seed entities of different communities.

Order within the returned list is HiRAG's context layout (backgrounds, reasoning paths,
entities, relations, sources); ``fit_budget`` trims it to the token budget.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ace_lab.bounded import Bounded, bounded
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Evidence, fit_budget
from ace_lab.retrieval import RetrievalGraph, bridge_paths

HI_MODES = ("hi", "hi_local", "hi_global")


@dataclass(frozen=True)
class HiConfig(Bounded):
    """How much each HiRAG mode retrieves; ``budget_tokens`` caps one retrieval call."""

    top_entities: int = bounded(8, lo=0, hi=200, help="base entities seeded by the query")
    top_relations: int = bounded(8, lo=0, hi=200, help="relations among the seed entities")
    top_passages: int = bounded(4, lo=0, hi=200, help="source passages of the seeds")
    top_summaries: int = bounded(3, lo=0, hi=100, help="summary entities (global mode)")
    top_reports: int = bounded(2, lo=0, hi=100, help="community reports (global mode)")
    bridge_paths: int = bounded(3, lo=0, hi=50, help="shortest paths local ↔ global (bridge)")
    bridge_max_hops: int = bounded(4, lo=1, hi=10, help="longest bridge path, in hops")
    budget_tokens: int = bounded(
        CONTEXT_BUDGET_TOKENS, lo=0, hi=100_000, help="token cap of one retrieval call"
    )


def _rank_scores(ids: list[str]) -> dict[str, float]:
    return {i: 1.0 / rank for rank, i in enumerate(ids, 1)}


class HiRetriever:
    """HiRAG's three context builders over one hierarchical ``RetrievalGraph``."""

    modes = HI_MODES

    def __init__(self, graph: RetrievalGraph, config: HiConfig | None = None) -> None:
        self.graph = graph
        self.config = config or HiConfig()

    # ----------------------------------------------------------------------- seeds
    def seed_entities(self, query: str) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """``(base entities, summary entities)`` hit by the query, best first."""
        cfg = self.config
        hits = self.graph.search("entities", query, k=cfg.top_entities + cfg.top_summaries + 8)
        base = [(i, s) for i, s in hits if self.graph.nodes[i].level == 0][: cfg.top_entities]
        summaries = [(i, s) for i, s in hits if self.graph.nodes[i].level > 0]
        return base, summaries[: cfg.top_summaries]

    # ----------------------------------------------------------------------- modes
    def retrieve(self, query: str, mode: str = "hi") -> list[Evidence]:
        if mode not in HI_MODES:
            raise ValueError(f"unknown HiRAG mode {mode!r}; use one of {HI_MODES}")
        base, summaries = self.seed_entities(query)
        local = self.local_context(query, base) if mode in ("hi", "hi_local") else []
        global_ = self._global(query, base, summaries) if mode in ("hi", "hi_global") else []
        paths = self._bridges([i for i, _ in base]) if mode == "hi" else []
        # HiRAG's layout: backgrounds (reports, summaries), reasoning paths, local detail.
        return fit_budget(global_ + paths + local, self.config.budget_tokens)

    def local_context(self, query: str, base: list[tuple[str, float]]) -> list[Evidence]:
        """Entities, their relations and their source passages (the ``hi_local`` context)."""
        cfg, g = self.config, self.graph
        entities = [g.entity_evidence(i, s) for i, s in base]
        seed_ids = {i for i, _ in base}
        # Relations at the seeds, strongest first, then the relation index's own hits.
        around: dict[str, float] = {}
        for node in seed_ids:
            for edge, other in g.neighbours(node):
                if edge.type in ("MENTIONED_IN", "MEMBER_OF", "IN_COMMUNITY", "SYNONYM"):
                    continue
                both = other in seed_ids
                around[edge.id] = max(around.get(edge.id, 0.0), edge.weight * (2 if both else 1))
        ranked = sorted(around, key=lambda e: (-around[e], e))
        hits = [i for i, _ in g.search("relations", query, k=cfg.top_relations)]
        relation_ids = list(dict.fromkeys(ranked[: cfg.top_relations // 2] + hits))
        relations = [
            g.relation_evidence(i, around.get(i, 0.0)) for i in relation_ids[: cfg.top_relations]
        ]
        passages = [g.passage_evidence(i, s) for i, s in self._passages(query, base)]
        return entities + relations + passages

    def _passages(self, query: str, base: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """Source passages: the chunks that mention most seed entities, fused with the passage
        index's own ranking (HiRAG takes the seeds' text units; the fusion breaks ties)."""
        g = self.graph
        mentions: Counter[str] = Counter()
        for rank, (node, _) in enumerate(base, 1):
            for _, chunk in g.neighbours(node, "MENTIONED_IN"):
                mentions[chunk] += 1.0 / rank
        by_mentions = [c for c, _ in mentions.most_common()]
        by_index = [i for i, _ in g.search("passages", query, k=self.config.top_passages * 2)]
        fused: Counter[str] = Counter()
        for ranking in (by_mentions, by_index):
            for chunk, score in _rank_scores(ranking).items():
                fused[chunk] += score
        return [(c, s) for c, s in fused.most_common(self.config.top_passages) if c in g.nodes]

    def _global(
        self, query: str, base: list[tuple[str, float]], summaries: list[tuple[str, float]]
    ) -> list[Evidence]:
        cfg, g = self.config, self.graph
        # Summary entities the seeds belong to, then those the query hit directly.
        parents: Counter[str] = Counter()
        for node, _ in base:
            for edge, other in g.neighbours(node, "MEMBER_OF"):
                if edge.source == node:
                    parents[other] += 1
        summary_ids = list(dict.fromkeys([p for p, _ in parents.most_common()][:2]))
        summary_ids += [i for i, _ in summaries if i not in summary_ids]
        summary_items = [g.entity_evidence(i) for i in summary_ids[: cfg.top_summaries]]
        # Reports of the seeds' communities (most seeds first), then the best report hits.
        communities = Counter(c for node, _ in base if (c := g.community_of(node)))
        report_ids = [c for c, _ in communities.most_common()][: cfg.top_reports]
        if g.reports_index is not None and len(report_ids) < cfg.top_reports:
            hits = g.reports_index.search(query, k=cfg.top_reports)
            report_ids += [h.id for h in hits if h.id not in report_ids]
        reports = [g.report_evidence(i) for i in report_ids[: cfg.top_reports]]
        return reports + summary_items

    def _bridges(self, seeds: list[str]) -> list[Evidence]:
        """Shortest paths (2+ hops) between seed entities of different communities."""
        cfg = self.config
        paths = bridge_paths(
            self.graph.tables,
            seeds,
            max_pairs=cfg.bridge_paths * 3,
            max_hops=cfg.bridge_max_hops,
            index=self.graph.bridge_index,
        )
        longer = [p for p in paths if len(p) > 2][: cfg.bridge_paths]  # 1 hop is a relation
        return [self.graph.path_evidence(p, score=1.0 / len(p)) for p in longer]
