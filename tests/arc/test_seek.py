"""ace_lab.arc.seek: the anchor query, the triple-hint query and the probe start from the nodes
that can match (index lookups, no scan of every node) and return the rows the old scans
returned, in the same order, on a committed graph and on a synthetic one."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ace_lab.arc.explore import params_for, probe_queries
from ace_lab.arc.retrieve import Retrieval, anchor_query, triple_query
from ace_lab.arc.schema import introspect, schema_for
from ace_lab.arc.seek import into_anchors, provenance_map
from ace_lab.arc.steps import ArcAnchor
from ace_lab.graph.seeds import build_seed_indexes
from ace_lab.graph.store.guard import check_read_only
from ace_lab.graph.tables import GraphTables
from ace_lab.retrieval import RetrievalGraph
from bench.synthetic_graph import HashEmbedder, typed
from tests.support.paths import REPO

COMMITTED = REPO / "data/graphs/hotpotqa_dev_sample200-n20-s0/typed/qwen1.5b/tables"
#: Hit sets compared per graph (each: one anchor query, two probe queries, one triple query).
SAMPLES = 8


def _graph(tables: GraphTables, name: str) -> RetrievalGraph:
    embedder = HashEmbedder()
    indexes = build_seed_indexes(tables, embedder, progress=False, cache=False)
    return RetrievalGraph(tables, indexes, name=name, embedder=embedder)


@pytest.fixture(scope="module", params=["committed", "synthetic"])
def graph(request: pytest.FixtureRequest) -> Any:
    if request.param == "committed":
        g = _graph(GraphTables.load(COMMITTED), "seek/committed-typed")
    else:
        g = _graph(typed(3000), "seek/synthetic-typed")
    yield g
    g.close()


def _rows(graph: Any, cypher: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    return graph.store.read(cypher, params, timeout_ms=60_000, max_rows=5_000).rows


def _plan(graph: Any, cypher: str, params: dict[str, Any]) -> str:
    return str(graph.store._graph.explain(cypher, params))


def _retrieval(rows: list[dict[str, Any]], chunk_ids: list[str]) -> Retrieval:
    anchors = tuple(ArcAnchor(r["key"], r["text"], tuple(r["labels"]), "p") for r in rows[:4])
    return Retrieval(("p",), "passages", {}, anchors, (), tuple(chunk_ids), ())


def test_anchor_and_probe_rows_are_the_scans_in_the_same_order(graph):
    schema, _ = schema_for(graph)
    assert schema.chunk_backed and schema.passage_label and schema.key == "id"
    passages = list(graph.indexes.get("passages").ids)
    rnd = random.Random(0)
    probed = 0
    for _ in range(SAMPLES):
        ids = rnd.sample(passages, 5)
        cypher, params = anchor_query(graph, schema, ids)
        assert cypher.startswith("CALL {") and "All Node Scan" not in _plan(graph, cypher, params)
        old = _rows(graph, *anchor_query(graph, schema, ids, scan=True))
        assert _rows(graph, cypher, params) == old
        retrieval = _retrieval(old, ids)
        if not retrieval.anchors:
            continue
        probed += 1
        seeks = probe_queries(schema, retrieval)
        for new_q, old_q in zip(seeks, probe_queries(schema, retrieval, scan=True), strict=True):
            assert "All Node Scan" not in _plan(graph, new_q, params_for(retrieval))
            assert _rows(graph, new_q, params_for(retrieval)) == _rows(
                graph, old_q, params_for(retrieval)
            )
    assert probed >= SAMPLES // 2  # the probes compared were not all empty ones


def test_triple_hint_rows_are_the_scans_in_the_same_order(graph):
    indexes = graph.indexes
    schema = introspect(
        graph.store, (), indexes.get("relations").ids[:20], indexes.get("entities").ids[:20]
    )
    assert schema.edge_key == "id"
    edges = list(indexes.get("relations").ids)
    rnd = random.Random(1)
    for _ in range(SAMPLES):
        ids = rnd.sample(edges, 5)
        cypher, params = triple_query(graph, schema, ids)
        assert cypher.startswith("CALL {")
        rows = _rows(graph, cypher, params)
        assert rows and rows == _rows(graph, *triple_query(graph, schema, ids, scan=True))


def test_the_starts_are_read_only_and_the_scan_stays_where_they_cannot_be_known(graph):
    schema, _ = schema_for(graph)
    ids = list(graph.indexes.get("passages").ids)[:3]
    cypher, params = anchor_query(graph, schema, ids)
    check_read_only(cypher)  # the guard is unchanged: CALL { ... } subqueries are reads
    assert set(params) == {"ids", "nodes"}
    unlabelled = ArcAnchor("x", "x", (), "p")
    assert into_anchors(schema, [unlabelled.labels]) is None
    no_key = schema.__class__(**{**schema.__dict__, "key": None})
    assert anchor_query(graph, no_key, ids)[0].startswith("MATCH (a)-[r]-()")
    assert anchor_query(object(), schema, ids)[0].startswith("MATCH (a)-[r]-()")
    retrieval = Retrieval(("p",), "passages", {}, (unlabelled,), (), tuple(ids), ())
    assert all(c.startswith("MATCH (a)-[r]->(b)") for c in probe_queries(schema, retrieval))


def test_the_provenance_map_is_built_once_per_graph(graph):
    first = provenance_map(graph, "source_ids")
    assert provenance_map(graph, "source_ids") is first
    edge = next(e for e in graph.edges.values() if e.source_ids)
    assert {edge.source, edge.target} <= set(first[edge.source_ids[0]])
