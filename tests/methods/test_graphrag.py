"""ace_lab.methods.graphrag: GraphRAG's local, global and local+global contexts on the
hierarchical toy graph (communities and reports from the scripted build), within the budget."""

from __future__ import annotations

import pytest

from ace_lab.methods.graphrag import GRAPHRAG_MODES, GraphRAGConfig, GraphRAGRetriever
from tests.support.contexts import fits_budget

QUERY = "Who founded the observatory?"
LOCAL_KINDS = {"report", "entity", "relation", "passage"}


def _kinds(items) -> list[str]:
    return [e.kind for e in items]


def test_global_returns_the_best_matching_reports(toy_graph):
    cfg = GraphRAGConfig()
    glob = GraphRAGRetriever(toy_graph, cfg).retrieve(QUERY, "global")
    assert glob and set(_kinds(glob)) == {"report"} and len(glob) <= cfg.global_reports
    two = GraphRAGRetriever(toy_graph, GraphRAGConfig(global_reports=2)).retrieve(QUERY, "global")
    assert [e.id for e in two] == [e.id for e in glob[:2]]
    none = GraphRAGRetriever(toy_graph, GraphRAGConfig(global_reports=0))
    assert none.retrieve(QUERY, "global") == []
    assert fits_budget(glob, cfg.budget_tokens)


def test_local_returns_seed_context_and_their_communities_reports(toy_graph):
    cfg = GraphRAGConfig()
    local = GraphRAGRetriever(toy_graph, cfg).retrieve(QUERY, "local")
    kinds = _kinds(local)
    assert set(kinds) <= LOCAL_KINDS and {"report", "entity", "passage"} <= set(kinds)
    assert kinds.count("report") <= cfg.community_reports
    assert kinds == sorted(kinds, key=lambda k: k != "report")  # reports come first
    assert fits_budget(local, cfg.budget_tokens)
    no_reports = GraphRAGRetriever(toy_graph, GraphRAGConfig(community_reports=0))
    plain = no_reports.retrieve(QUERY, "local")
    assert "report" not in _kinds(plain)
    assert [e.id for e in plain] == [e.id for e in local if e.kind != "report"]


def test_local_global_is_global_reports_then_local_without_repeats(toy_graph):
    retriever = GraphRAGRetriever(toy_graph, GraphRAGConfig(budget_tokens=100_000))
    glob = retriever.retrieve(QUERY, "global")
    local = retriever.retrieve(QUERY, "local")
    both = retriever.retrieve(QUERY, "local+global")
    ids = [e.id for e in both]
    assert len(ids) == len(set(ids))
    assert ids[: len(glob)] == [e.id for e in glob]
    assert set(ids) == {e.id for e in glob} | {e.id for e in local}
    assert [e.id for e in both if e.kind != "report"] == [e.id for e in local if e.kind != "report"]
    assert GraphRAGRetriever.modes == GRAPHRAG_MODES == ("local+global", "local", "global")


@pytest.mark.parametrize("mode", GRAPHRAG_MODES)
def test_every_mode_stays_within_budget_tokens(toy_graph, mode):
    def retrieve(budget: int) -> list:
        return GraphRAGRetriever(toy_graph, GraphRAGConfig(budget_tokens=budget)).retrieve(
            QUERY, mode
        )

    full = retrieve(100_000)
    budget = 20 if mode == "global" else 200
    capped = retrieve(budget)
    assert capped and len(capped) < len(full) and fits_budget(capped, budget)
    full_ids = [e.id for e in full]
    kept = [full_ids.index(e.id) for e in capped]
    assert kept == sorted(kept)  # a budget drops items, it never reorders them


def test_unknown_mode_raises(toy_graph):
    with pytest.raises(ValueError, match="unknown GraphRAG mode 'hybrid'"):
        GraphRAGRetriever(toy_graph).retrieve(QUERY, "hybrid")
