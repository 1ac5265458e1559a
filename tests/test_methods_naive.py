"""ace_lab.methods.naive: NaiveRAG's top-k passages on the toy graph, within the token budget."""

from __future__ import annotations

import pytest

from ace_lab.methods.naive import NaiveConfig, NaiveRetriever
from tests.conftest import fits_budget


def test_naive_returns_top_k_passages_within_budget(toy_graph):
    query = "tidal lantern museum"
    items = NaiveRetriever(toy_graph, NaiveConfig(budget_tokens=None)).retrieve(query)
    assert {e.kind for e in items} == {"passage"} and len(items) == 5
    assert [e.id for e in items] == [i for i, _ in toy_graph.search("passages", query, 5)]

    two = NaiveRetriever(toy_graph, NaiveConfig(top_passages=2)).retrieve(query)
    assert [e.id for e in two] == [e.id for e in items[:2]]

    budget = max(e.tokens for e in items) + 20
    capped = NaiveRetriever(toy_graph, NaiveConfig(budget_tokens=budget)).retrieve(query)
    assert capped and len(capped) < len(items) and fits_budget(capped, budget)
    assert NaiveRetriever(toy_graph, NaiveConfig(budget_tokens=1)).retrieve(query) == []
    with pytest.raises(ValueError, match="unknown NaiveRAG mode"):
        NaiveRetriever(toy_graph).retrieve(query, "local")
