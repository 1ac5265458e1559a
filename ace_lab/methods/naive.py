"""NaiveRAG: the query's top passages from the passage seed index, nothing from the graph.

The floor every graph method has to beat: the same hybrid retrieval (dense + BM25, RRF) over
the same chunks the graphs were built from, with the same token budget, so a difference in
answer quality is what the graph adds rather than a difference in search or context size.
"""

from __future__ import annotations

from dataclasses import dataclass

from ace_lab.evidence import Evidence
from ace_lab.methods.hirag import fit_budget
from ace_lab.methods.retrieval_graph import RetrievalGraph

NAIVE_MODES = ("passages",)


@dataclass(frozen=True)
class NaiveConfig:
    """``top_passages`` hits of the passage index, trimmed to ``budget_tokens`` (None: no cap).

    The budget defaults to HiRAG's so every baseline answers from contexts of the same size.
    """

    top_passages: int = 5
    budget_tokens: int | None = 1500

    def __post_init__(self) -> None:
        if self.top_passages < 0:
            raise ValueError(f"NaiveConfig.top_passages must be >= 0, got {self.top_passages}")
        if self.budget_tokens is not None and self.budget_tokens < 0:
            raise ValueError(f"NaiveConfig.budget_tokens must be >= 0, got {self.budget_tokens}")


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
