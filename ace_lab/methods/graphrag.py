"""GraphRAG local and global context builders over the Leiden communities and their reports.

- ``local``: GraphRAG local search's context — seed entities, their relations, their source
  passages, and the reports of the communities the seeds belong to.
- ``global``: the community reports most relevant to the query. Microsoft GraphRAG rates every
  report with an LLM map step; here reports are ranked by the same hybrid retrieval as every
  other index, so the comparison isolates context construction rather than report rating.
- ``local+global``: both, reports first.

The communities and reports come from the hierarchical build, so GraphRAG and HiRAG share one
graph and one extraction; this is also the backbone ACE is transferred onto.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ace_lab.bounded import Bounded, bounded
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Evidence, fit_budget
from ace_lab.methods.hirag import HiConfig, HiRetriever
from ace_lab.retrieval import RetrievalGraph

GRAPHRAG_MODES = ("local+global", "local", "global")


@dataclass(frozen=True)
class GraphRAGConfig(Bounded):
    """GraphRAG local (entities + their communities' reports) and global (top reports)."""

    local: HiConfig = field(default_factory=lambda: HiConfig(top_summaries=0, bridge_paths=0))
    community_reports: int = bounded(
        2, lo=0, hi=50, help="reports of the seed entities' communities (local mode)"
    )
    global_reports: int = bounded(4, lo=0, hi=100, help="best-matching reports (global mode)")
    budget_tokens: int = bounded(
        CONTEXT_BUDGET_TOKENS, lo=0, hi=100_000, help="token cap of one retrieval call"
    )


class GraphRAGRetriever:
    modes = GRAPHRAG_MODES

    def __init__(self, graph: RetrievalGraph, config: GraphRAGConfig | None = None) -> None:
        self.graph = graph
        self.config = config or GraphRAGConfig()
        self._hi = HiRetriever(graph, self.config.local)

    def retrieve(self, query: str, mode: str = "local+global") -> list[Evidence]:
        if mode not in GRAPHRAG_MODES:
            raise ValueError(f"unknown GraphRAG mode {mode!r}; use one of {GRAPHRAG_MODES}")
        items: list[Evidence] = []
        if mode in ("local+global", "global"):
            items += self._global(query)
        if mode in ("local+global", "local"):
            items += self._local(query, skip={e.id for e in items})
        return fit_budget(items, self.config.budget_tokens)

    def _local(self, query: str, skip: set[str]) -> list[Evidence]:
        base, _ = self._hi.seed_entities(query)
        communities = Counter(c for node, _ in base if (c := self.graph.community_of(node)))
        reports = [
            self.graph.report_evidence(c)
            for c, _ in communities.most_common(self.config.community_reports)
            if c not in skip
        ]
        return reports + self._hi.local_context(query, base)

    def _global(self, query: str) -> list[Evidence]:
        index = self.graph.reports_index
        if index is None:
            return []
        hits = index.search(query, k=self.config.global_reports)
        return [self.graph.report_evidence(h.id, h.score) for h in hits]
