"""NaiveRAG: the query's top passages from the passage seed index, nothing from the graph.

The floor every graph method has to beat: the same hybrid retrieval (dense + BM25, RRF) over
the same chunks the graphs were built from, with the same token budget, so a difference in
answer quality is what the graph adds rather than a difference in search or context size.
"""

from __future__ import annotations

from dataclasses import dataclass

from ace_lab.bounded import Bounded, bounded
from ace_lab.evidence import Evidence, fit_budget
from ace_lab.retrieval import RetrievalGraph

NAIVE_MODES = ("passages",)


@dataclass(frozen=True)
class NaiveConfig(Bounded):
    """``top_passages`` hits of the passage index, trimmed to ``budget_tokens`` (None: no cap).

    The budget defaults to HiRAG's so every baseline answers from contexts of the same size.
    """

    top_passages: int = bounded(5, lo=0, hi=200, help="passages taken from the hybrid index")
    budget_tokens: int | None = bounded(
        1500, lo=0, hi=100_000, help="token cap of one retrieval call (None: no cap)"
    )


class NaiveRetriever:
    """Top-k passages by hybrid search, best first (one mode: ``passages``)."""

    modes = NAIVE_MODES

    def __init__(self, graph: RetrievalGraph, config: NaiveConfig | None = None) -> None:
        self.graph = graph
        self.config = config or NaiveConfig()

    def retrieve(self, query: str, mode: str = "passages") -> list[Evidence]:
        if mode not in NAIVE_MODES:
            raise ValueError(f"unknown NaiveRAG mode {mode!r}; use one of {NAIVE_MODES}")
        g = self.graph
        hits = g.search("passages", query, k=self.config.top_passages)
        items = [g.passage_evidence(i, s) for i, s in hits if i in g.nodes]
        return fit_budget(items, self.config.budget_tokens)
