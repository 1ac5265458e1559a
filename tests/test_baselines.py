"""NaiveRAG, LightRAG and HippoRAG context builders and their registry names, on toy graphs
(scripted LLM for the builds and the answers; real MiniLM seed indexes)."""

from __future__ import annotations

import numpy as np
import pytest

from ace_lab.config import Settings
from ace_lab.data import chunk_passages, load_dataset
from ace_lab.evidence import Context, Evidence
from ace_lab.graph.index import STRUCTURAL_EDGE_TYPES, build_seed_indexes
from ace_lab.graph.openie import OpenIEConfig, build_openie
from ace_lab.graph.tables import GraphTables
from ace_lab.llm import LLM
from ace_lab.methods.hipporag import HippoConfig, HippoRetriever
from ace_lab.methods.lightrag import (
    LightRAGConfig,
    LightRAGRetriever,
    Sections,
    merge_sections,
)
from ace_lab.methods.naive import NaiveConfig, NaiveRetriever
from ace_lab.methods.registry import METHODS, graph_family, make_method
from ace_lab.methods.retrieval_graph import RetrievalGraph
from tests.conftest import ScriptedClient
from tests.test_openie import OneHotEmbedder, scripted

NEW_METHODS = ("naive", "lightrag", "lightrag-local", "lightrag-global", "hipporag")
ANSWER = "Reasoning: x\nResult: [FINAL_ANSWER] y [/FINAL_ANSWER]"


# ---------------------------------------------------------------------------------- graphs
@pytest.fixture(scope="module")
def openie_graph(tmp_path_factory) -> RetrievalGraph:
    """The OpenIE toy graph of the first three toy chunks (pattern of tests/test_openie.py)."""
    base = Settings(cache_dir=tmp_path_factory.mktemp("cache"))
    llm = LLM(base, client=ScriptedClient(scripted))
    chunks = chunk_passages(load_dataset("toy").passages)[:3]
    tables = build_openie(
        chunks,
        llm,
        tmp_path_factory.mktemp("run"),
        OpenIEConfig(),
        progress=False,
        embedder=OneHotEmbedder(),
        embed_cache=False,
    )
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="openie")


def _entity(i: str, name: str, chunk: str) -> dict:
    return {"id": i, "label": "Entity", "name": name, "source_ids": [chunk]}


def _edge(i: str, a: str, b: str, kind: str, weight: float = 1.0, **extra) -> dict:
    return {"id": i, "source": a, "target": b, "type": kind, "weight": weight, **extra}


@pytest.fixture(scope="module")
def tiny_graph() -> RetrievalGraph:
    """4 entities, 3 chunks: a chain Alpha–Beta–Gamma, Delta alone with its own chunk."""
    chunks = {
        "c1": "Alpha met Beta at the harbour.",
        "c2": "Gamma keeps the lighthouse records.",
        "c3": "Delta grows apples in the valley.",
    }
    nodes = [
        {"id": c, "label": "Chunk", "name": c.upper(), "description": t, "source_ids": [c]}
        for c, t in chunks.items()
    ]
    nodes += [
        _entity("a", "Alpha", "c1"),
        _entity("b", "Beta", "c1"),
        _entity("c", "Gamma", "c2"),
        _entity("d", "Delta", "c3"),
    ]
    edges = [
        _edge("r1", "a", "b", "RELATION", 2.0, predicate="met", source_ids=["c1"]),
        _edge("r2", "b", "c", "RELATION", 1.0, predicate="knows", source_ids=["c2"]),
        _edge("m1", "a", "c1", "MENTIONED_IN"),
        _edge("m2", "b", "c1", "MENTIONED_IN"),
        _edge("m3", "c", "c2", "MENTIONED_IN"),
        _edge("m4", "d", "c3", "MENTIONED_IN"),
    ]
    tables = GraphTables.from_records(nodes, edges, {"family": "openie"})
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="tiny")


def _fits(items: list[Evidence], budget: int) -> bool:
    _, dropped = Context(items).fit(budget)
    return not dropped


# ---------------------------------------------------------------------------------- naive
def test_naive_returns_top_k_passages_within_budget(toy_graph):
    query = "tidal lantern museum"
    items = NaiveRetriever(toy_graph, NaiveConfig(budget_tokens=None)).retrieve(query)
    assert {e.kind for e in items} == {"passage"} and len(items) == 5
    assert [e.id for e in items] == [i for i, _ in toy_graph.search("passages", query, 5)]

    two = NaiveRetriever(toy_graph, NaiveConfig(top_passages=2)).retrieve(query)
    assert [e.id for e in two] == [e.id for e in items[:2]]

    budget = max(e.tokens for e in items) + 20
    capped = NaiveRetriever(toy_graph, NaiveConfig(budget_tokens=budget)).retrieve(query)
    assert capped and len(capped) < len(items) and _fits(capped, budget)
    assert NaiveRetriever(toy_graph, NaiveConfig(budget_tokens=1)).retrieve(query) == []
    with pytest.raises(ValueError, match="unknown NaiveRAG mode"):
        NaiveRetriever(toy_graph).retrieve(query, "local")


# ------------------------------------------------------------------------------- lightrag
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
    assert items and len(items) < len(hybrid) and _fits(items, budget)
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


# ------------------------------------------------------------------------------- hipporag
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
    assert kept and _fits(kept, budget)


# ------------------------------------------------------------------------------- registry
def test_new_baselines_are_registered(settings, toy_graph, openie_graph):
    assert set(NEW_METHODS) <= set(METHODS)
    assert graph_family("hipporag") == "openie" and graph_family("lightrag") == "hierarchical"
    for graph in (toy_graph, openie_graph):
        for name in NEW_METHODS:
            llm = LLM(settings, client=ScriptedClient(lambda kw: ANSWER))
            answer = make_method(name, graph, llm).answer("Who founded the lantern works?")
            assert answer.text == "y", name
            assert answer.context.evidence, (name, graph.name)
            assert answer.meta["method"] == name and answer.trace.summary()["llm_calls"] == 1
