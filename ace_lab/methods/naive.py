"""NaiveRAG: passages from the passage seed index, best first until the budget is full.

The floor every graph method has to beat: the same hybrid retrieval (dense + BM25, RRF) over
the same chunks the graphs were built from, filling the same context budget
(:data:`~ace_lab.evidence.CONTEXT_BUDGET_TOKENS`), so a difference in answer quality is what the
graph adds rather than a difference in search or context size. A fixed top-k would not do: five
passages averaged ≈550 tokens against HiRAG's ≈1,260 on the committed slices.
"""

from __future__ import annotations

from dataclasses import dataclass

from ace_lab.bounded import Bounded, bounded
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Evidence, fit_budget
from ace_lab.retrieval import RetrievalGraph

NAIVE_MODES = ("passages",)


@dataclass(frozen=True)
class NaiveConfig(Bounded):
    """The ``candidates`` best hits of the passage index, taken in rank order until
    ``budget_tokens`` is full (a passage that no longer fits is skipped and a later, shorter
    one may still be taken; ``None``: no cap, every candidate).

    The budget is the shared QA context budget, so every baseline answers from contexts of the
    same size; ``candidates`` only bounds the search and is large enough that the budget, not
    the pool, decides how many passages the context holds.
    """

    candidates: int = bounded(
        50, lo=0, hi=500, help="hybrid-index hits considered, best first, to fill the budget"
    )
    budget_tokens: int | None = bounded(
        CONTEXT_BUDGET_TOKENS,
        lo=0,
        hi=100_000,
        help="tokens of the rendered context the passages fill (None: no cap)",
    )


class NaiveRetriever:
    """Passages by hybrid search, best first, until the budget is full (mode ``passages``)."""

    modes = NAIVE_MODES

    def __init__(self, graph: RetrievalGraph, config: NaiveConfig | None = None) -> None:
        self.graph = graph
        self.config = config or NaiveConfig()

    def retrieve(self, query: str, mode: str = "passages") -> list[Evidence]:
        if mode not in NAIVE_MODES:
            raise ValueError(f"unknown NaiveRAG mode {mode!r}; use one of {NAIVE_MODES}")
        g = self.graph
        hits = g.search("passages", query, k=self.config.candidates)
        items = [g.passage_evidence(i, s) for i, s in hits if i in g.nodes]
        return fit_budget(items, self.config.budget_tokens)
