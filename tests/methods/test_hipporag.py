"""ace_lab.methods.hipporag: Personalized PageRank (damping 0.5) checked against a direct power
iteration, passage ranking from query seeds, the dense fallback, and the OpenIE toy graph."""

from __future__ import annotations

import numpy as np
import pytest

from ace_lab.methods.hipporag import HippoConfig, HippoRetriever
from ace_lab.retrieval import RetrievalGraph
from tests.support.contexts import fits_budget


def _direct_ppr(graph: RetrievalGraph, reset: dict[str, float], damping: float) -> dict:
    """Power iteration p = (1 - d) r + d Pᵀp on the undirected weighted walk graph."""
    ids = sorted(graph.nodes)
    pos = {n: i for i, n in enumerate(ids)}
    w = np.zeros((len(ids), len(ids)))
    for edge in graph.edges.values():
        w[pos[edge.source], pos[edge.target]] += edge.weight
        w[pos[edge.target], pos[edge.source]] += edge.weight
    step = w / w.sum(axis=1, keepdims=True)
    r = np.zeros(len(ids))
    for node, value in reset.items():
        r[pos[node]] = value
    r /= r.sum()
    p = r.copy()
    for _ in range(500):
        p = (1 - damping) * r + damping * step.T @ p
    return dict(zip(ids, p, strict=True))


def test_hipporag_ppr_is_damping_one_half(tiny_graph):
    retriever = HippoRetriever(tiny_graph)
    assert set(retriever.ppr_graph.ids) == set(tiny_graph.nodes)
    assert retriever.ppr_graph is retriever.ppr_graph  # built once
    scores = retriever.ppr({"a": 1.0})
    half = _direct_ppr(tiny_graph, {"a": 1.0}, 0.5)
    for node, value in half.items():
        assert scores[node] == pytest.approx(value, abs=1e-6), node
    other = _direct_ppr(tiny_graph, {"a": 1.0}, 0.85)
    assert abs(other["c2"] - scores["c2"]) > 1e-3  # the check can tell the two settings apart
    assert scores["c1"] > scores["c2"] > scores["c3"] == pytest.approx(0.0)
    assert sum(scores.values()) == pytest.approx(1.0)


def test_hipporag_ranks_passages_from_the_seed(tiny_graph):
    retriever = HippoRetriever(tiny_graph, HippoConfig(budget_tokens=None))
    assert [i for i, _ in retriever.seeds("Alpha")] == ["a"]
    items = retriever.retrieve("Alpha")
    assert [(e.kind, e.id) for e in items] == [
        ("entity", "a"),
        ("passage", "c1"),
        ("passage", "c2"),
    ]
    assert all(e.meta["retrieval"] == "ppr" for e in items)
    assert items[1].score > items[2].score > 0

    no_seeds = HippoRetriever(tiny_graph, HippoConfig(include_seeds=False, top_passages=1))
    assert [e.id for e in no_seeds.retrieve("Alpha")] == ["c1"]
    with pytest.raises(ValueError, match="unknown HippoRAG mode"):
        retriever.retrieve("Alpha", "local")


def test_hipporag_unmatched_query_falls_back_to_dense_passages(tiny_graph):
    retriever = HippoRetriever(tiny_graph, HippoConfig(top_passages=2, budget_tokens=None))
    assert retriever.seeds("zzzq xqxq") == []
    items = retriever.retrieve("zzzq xqxq")
    assert len(items) == 2 and {e.kind for e in items} == {"passage"}
    assert all(e.meta["retrieval"] == "dense_fallback" for e in items)
    dense = tiny_graph.indexes.get("passages").search("zzzq xqxq", k=2, mode="dense")
    assert [e.id for e in items] == [h.id for h in dense]


def test_hipporag_on_the_openie_graph(openie_graph):
    cfg = HippoConfig(top_seeds=2, top_passages=2, budget_tokens=None)
    retriever = HippoRetriever(openie_graph, cfg)
    items = retriever.retrieve("Where was Ilse Marrin born?")
    entities = [e for e in items if e.kind == "entity"]
    passages = [e for e in items if e.kind == "passage"]
    assert {e.kind for e in items} == {"entity", "passage"}
    assert 1 <= len(entities) <= 2 and len(passages) == 2
    assert entities[0].id == "ent:ilse marrin"
    assert {p.id for p in passages} == {"toy-01", "toy-02"}  # the chunks that mention her

    budget = max(p.tokens for p in passages) + 30
    capped = HippoRetriever(openie_graph, HippoConfig(budget_tokens=budget))
    kept = capped.retrieve("Where was Ilse Marrin born?")
    assert kept and fits_budget(kept, budget)


def test_hipporag_on_the_hierarchical_graph_walks_base_entities_and_passages(toy_graph):
    retriever = HippoRetriever(toy_graph, HippoConfig(budget_tokens=None))
    walk = retriever.ppr_graph
    labels = {toy_graph.nodes[i].label for i in walk.ids}
    assert "Chunk" in labels and not labels & {"Summary", "Community"}
    assert all(toy_graph.nodes[i].level == 0 for i in walk.ids)
    assert walk.graph.ecount() > 0

    items = retriever.retrieve("Which city keeps the tidal lantern?")
    seeds = [e for e in items if e.kind == "entity"]
    passages = [e for e in items if e.kind == "passage"]
    assert seeds and passages and all(e.meta["retrieval"] == "ppr" for e in items)
    mentioned = {
        edge.target if edge.source == seeds[0].id else edge.source
        for edge in toy_graph.edges.values()
        if edge.type == "MENTIONED_IN" and seeds[0].id in (edge.source, edge.target)
    }
    assert passages[0].id in mentioned  # the best passage is one the best seed is mentioned in


def test_hipporag_top_passages_rank_by_mass_then_id(tiny_graph):
    retriever = HippoRetriever(tiny_graph)
    ids = retriever.ppr_graph.ids
    scores = np.zeros(len(ids))
    c1, c2, c3 = (ids.index(c) for c in ("c1", "c2", "c3"))
    scores[[c1, c2, c3]] = [0.2, 0.5, 0.2]  # a tie between c1 and c3: id order breaks it
    scores[ids.index("a")] = 0.9  # an entity: never a passage
    assert retriever.top_passages(scores, 3) == [("c2", 0.5), ("c1", 0.2), ("c3", 0.2)]
    assert retriever.top_passages(scores, 1) == [("c2", 0.5)]
    scores[c2] = 0.0  # no mass: not ranked
    assert [c for c, _ in retriever.top_passages(scores, 3)] == ["c1", "c3"]
