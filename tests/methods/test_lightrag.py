"""ace_lab.methods.lightrag: LightRAG's local, global and hybrid contexts on the hierarchical and
the OpenIE toy graphs, the keyword option and the section merge."""

from __future__ import annotations

import pytest

from ace_lab.evidence import Evidence
from ace_lab.graph.seeds import STRUCTURAL_EDGE_TYPES
from ace_lab.methods.lightrag import (
    LightRAGConfig,
    LightRAGRetriever,
    Sections,
    merge_sections,
)
from ace_lab.retrieval import RetrievalGraph
from tests.support.contexts import fits_budget


def _is_base_entity(graph: RetrievalGraph, node_id: str) -> bool:
    node = graph.nodes[node_id]
    return node.level == 0 and node.label not in ("Chunk", "Summary", "Community")


@pytest.mark.parametrize("fixture", ["toy_graph", "openie_graph"])
def test_lightrag_local_and_global_contexts(fixture, request):
    graph: RetrievalGraph = request.getfixturevalue(fixture)
    cfg = LightRAGConfig(top_entities=3, top_relations=4, top_passages=2, budget_tokens=None)
    retriever = LightRAGRetriever(graph, cfg)
    query = "Ilse Marrin lantern"

    local = retriever.retrieve(query, "local")
    by_kind = {k: [e for e in local if e.kind == k] for k in ("entity", "relation", "passage")}
    assert {e.kind for e in local} <= {"entity", "relation", "passage"} and by_kind["entity"]
    assert len(by_kind["entity"]) <= 3 and len(by_kind["relation"]) <= 4
    assert len(by_kind["passage"]) <= 2
    seeds = {e.id for e in by_kind["entity"]}
    assert all(_is_base_entity(graph, i) for i in seeds)
    for rel in by_kind["relation"]:
        edge = graph.edges[rel.id]
        assert edge.type not in STRUCTURAL_EDGE_TYPES and {edge.source, edge.target} & seeds
    for passage in by_kind["passage"]:
        mentioned = {o for _, o in graph.neighbours(passage.id, "MENTIONED_IN")}
        assert mentioned & seeds

    glob = retriever.retrieve(query, "global")
    rels = [e for e in glob if e.kind == "relation"]
    assert rels and len(rels) <= 4 and {e.kind for e in glob} <= {"entity", "relation", "passage"}
    ends = {n for r in rels for n in (graph.edges[r.id].source, graph.edges[r.id].target)}
    assert {e.id for e in glob if e.kind == "entity"} <= ends
    sources = {c for r in rels for c in graph.edges[r.id].source_ids}
    passages = [e for e in glob if e.kind == "passage"]
    assert passages and len(passages) <= 2 and {e.id for e in passages} <= sources
    assert all(_is_base_entity(graph, i) for i in ends)


def test_lightrag_hybrid_is_the_deduplicated_union(toy_graph):
    retriever = LightRAGRetriever(toy_graph, LightRAGConfig(budget_tokens=None))
    query = "Who founded the observatory?"
    local = retriever.retrieve(query, "local")
    glob = retriever.retrieve(query, "global")
    hybrid = retriever.retrieve(query, "hybrid")
    ids = [e.id for e in hybrid]
    assert len(ids) == len(set(ids))
    assert set(ids) == {e.id for e in local} | {e.id for e in glob}
    assert set(e.id for e in local) & set(e.id for e in glob)  # there was something to dedupe
    kinds = [e.kind for e in hybrid]  # LightRAG's layout: entities, relations, sources
    assert kinds == sorted(kinds, key=["entity", "relation", "passage"].index)

    budget = 200
    capped = LightRAGRetriever(toy_graph, LightRAGConfig(budget_tokens=budget))
    items = capped.retrieve(query, "hybrid")
    assert items and len(items) < len(hybrid) and fits_budget(items, budget)
    with pytest.raises(ValueError, match="unknown LightRAG mode"):
        retriever.retrieve(query, "naive")


def test_lightrag_keywords_option_feeds_each_side(toy_graph):
    calls: list[str] = []

    def keywords(query: str) -> tuple[str, str]:
        calls.append(query)
        return "", "observatory"

    cfg = LightRAGConfig(budget_tokens=None)
    items = LightRAGRetriever(toy_graph, cfg, keywords=keywords).retrieve("q", "hybrid")
    assert calls == ["q"]  # one keyword call per retrieval
    plain = LightRAGRetriever(toy_graph, cfg)
    assert [e.id for e in items] == [e.id for e in plain.retrieve("observatory", "global")]


def test_merge_sections_keeps_first_copy():
    e, r = Evidence("e", "entity", "E"), Evidence("r", "relation", "R")
    p, p2 = Evidence("p", "passage", "P"), Evidence("p", "passage", "P again")
    merged = merge_sections([Sections((e,), (), (p,)), Sections((e,), (r,), (p2,))])
    assert [x.id for x in merged] == ["e", "r", "p"] and merged[2].text == "P"
