"""ace_lab.methods.naive: NaiveRAG takes passages best first until the shared budget is full."""

from __future__ import annotations

import pytest

from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Context
from ace_lab.methods.naive import NaiveConfig, NaiveRetriever
from tests.support.contexts import fits_budget

QUERY = "tidal lantern museum"


def test_naive_takes_candidates_in_rank_order(toy_graph):
    items = NaiveRetriever(toy_graph, NaiveConfig(budget_tokens=None)).retrieve(QUERY)
    ranked = [i for i, _ in toy_graph.search("passages", QUERY, 50)]
    assert {e.kind for e in items} == {"passage"} and len(items) > 5  # not a fixed top-5
    assert [e.id for e in items] == ranked
    two = NaiveRetriever(toy_graph, NaiveConfig(candidates=2, budget_tokens=None)).retrieve(QUERY)
    assert [e.id for e in two] == ranked[:2]
    with pytest.raises(ValueError, match="unknown NaiveRAG mode"):
        NaiveRetriever(toy_graph).retrieve(QUERY, "local")


def test_naive_fills_the_budget_and_never_exceeds_it(toy_graph):
    pool = NaiveRetriever(toy_graph, NaiveConfig(budget_tokens=None)).retrieve(QUERY)
    budget = sum(e.tokens for e in pool[:3]) + 25  # about three passages' worth
    kept = NaiveRetriever(toy_graph, NaiveConfig(budget_tokens=budget)).retrieve(QUERY)
    assert 3 <= len(kept) < len(pool) and fits_budget(kept, budget)
    assert [e.id for e in kept] == [e.id for e in pool if e in kept]  # best first, in order
    used = Context(kept).tokens
    for skipped in (e for e in pool if e not in kept):  # full: no skipped candidate fits
        assert not fits_budget([*kept, skipped], budget), skipped.id
    assert used <= budget
    assert NaiveRetriever(toy_graph, NaiveConfig(budget_tokens=1)).retrieve(QUERY) == []


def test_naive_defaults_to_the_shared_context_budget(toy_graph):
    cfg = NaiveConfig()
    assert cfg.budget_tokens == CONTEXT_BUDGET_TOKENS and cfg.candidates >= 50
    items = NaiveRetriever(toy_graph).retrieve(QUERY)
    assert items and fits_budget(items, CONTEXT_BUDGET_TOKENS)
