"""ace_lab.graph.store.bulk: GRAPH.BULK loads what the UNWIND batches load (same nodes, edges,
properties, internal ids and query results), embedded and over TCP, and falls back to UNWIND
when the tables hold what the protocol cannot carry or the server refuses it."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import pytest
from redis.exceptions import ResponseError

from ace_lab.graph.store import FalkorDBServerProcess, FalkorDBStore
from ace_lab.graph.store import bulk as bulk_module
from ace_lab.graph.store.bulk import BulkUnsupported, bulk_calls, encode_value, header
from ace_lab.graph.tables import GraphTables
from bench.synthetic_graph import typed
from tests.support.graphs import small_tables
from tests.support.paths import REPO

COMMITTED = REPO / "data/graphs/hotpotqa_dev_sample200-n20-s0/typed/qwen1.5b/tables"
NODES = (
    "MATCH (n) RETURN id(n) AS i, labels(n) AS l, properties(n) AS p ORDER BY i SKIP $s LIMIT 2000"
)
EDGES = (
    "MATCH (a)-[r]->(b) RETURN id(r) AS i, type(r) AS t, a.id AS s, b.id AS d, "
    "properties(r) AS p ORDER BY i SKIP $s LIMIT 2000"
)
#: Reads as the methods issue them (no ORDER BY: the order is the store's own).
READS = (
    "MATCH (n:Person) WHERE n.id IN $ids RETURN n",
    "MATCH (a)-[r]-(b) WHERE a.id IN $ids RETURN a.id, type(r), b.id LIMIT 50",
    "MATCH (a)-[]-()-[r]-(c) WHERE a.id IN $ids RETURN c.id, r.weight LIMIT 50",
    "MATCH (c:Chunk)<-[:MENTIONED_IN]-(e) RETURN c.id, count(e) AS k ORDER BY k DESC, c.id "
    "LIMIT 20",
    "MATCH (n) WHERE n.level > 0 OR n.description CONTAINS 'the' RETURN n.id LIMIT 30",
)


def _all(store: FalkorDBStore, cypher: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    while True:
        page = store.read(cypher, {"s": len(rows)}, timeout_ms=60_000, max_rows=2000).rows
        rows += page
        if len(page) < 2000:
            return rows


def dump(store: FalkorDBStore, ids: list[str]) -> dict[str, Any]:
    """Everything a reader can see: nodes and edges with ids and properties, schema, indexes,
    and the rows of reads that depend on the store's own order."""
    indexes = store._graph.ro_query("CALL db.indexes() YIELD label, properties, status")
    return {
        "nodes": _all(store, NODES),
        "edges": _all(store, EDGES),
        "schema": store.schema(),
        "indexes": sorted(map(str, indexes.result_set)),
        "reads": [store.read(q, {"ids": ids}, timeout_ms=60_000).rows for q in READS],
    }


def _load_both(server: Any, tables: GraphTables, name: str) -> tuple[Any, Any]:
    """(UNWIND store, bulk store) holding ``tables``; ``server`` makes a store from a name."""
    unwind, bulk = server(f"{name}-unwind"), server(f"{name}-bulk")
    unwind.bulk = False
    unwind.load(tables)
    bulk.load(tables)
    assert unwind.last_load.path == "unwind" and unwind.last_load.reason == "bulk loading is off"
    assert bulk.last_load.path == "bulk" and bulk.last_load.reason == ""
    return unwind, bulk


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FalkorDBServerProcess]:
    srv = FalkorDBServerProcess(tmp_path_factory.mktemp("falkordb-bulk")).start()
    yield srv
    srv.stop()


def test_values_encode_as_the_server_reads_them() -> None:
    assert encode_value(None) == b"\x00"
    assert encode_value(True) == b"\x01\x01" and encode_value(False) == b"\x01\x00"
    assert encode_value(0.5) == b"\x02" + struct.pack("=d", 0.5)
    assert encode_value("é") == b"\x03" + "é".encode() + b"\x00"
    assert encode_value(-7) == b"\x04" + struct.pack("=q", -7)
    assert encode_value(["a", 1]) == b"\x05" + struct.pack(
        "=q", 2
    ) + b"\x03a\x00\x04" + struct.pack("=q", 1)
    assert header("Sports`Team", ["id"]) == b"Sports_Team\x00" + struct.pack("=I", 1) + b"id\x00"


@pytest.mark.parametrize(
    "value", [{"a": 1}, "nul\x00inside", 2**63, object()], ids=["map", "nul", "big", "object"]
)
def test_values_the_protocol_cannot_carry_are_refused(value: Any) -> None:
    with pytest.raises(BulkUnsupported):
        encode_value(value)


def test_a_label_with_a_colon_is_refused() -> None:
    with pytest.raises(BulkUnsupported, match="A:B"):
        header("A:B", ["id"])


def test_calls_split_by_size_and_count_every_entity() -> None:
    tables = typed(3000)
    calls = list(bulk_calls(tables, token_bytes=20_000, call_bytes=100_000))
    assert len(calls) > 5
    assert sum(c.nodes for c in calls) == len(tables.nodes)
    assert sum(c.edges for c in calls) == len(tables.edges)
    assert all(c.size <= 100_000 + 20_000 for c in calls)
    first_edges = next(i for i, c in enumerate(calls) if c.edges)
    assert not any(c.nodes for c in calls[first_edges + 1 :])  # every node before any edge
    assert calls[0].args(True)[0] == "BEGIN" and calls[1].args(False)[0] != "BEGIN"


@pytest.mark.integration
@pytest.mark.parametrize("which", ["committed", "synthetic", "small"])
def test_bulk_loads_what_unwind_loads(
    server: FalkorDBServerProcess, which: str, monkeypatch
) -> None:
    if which == "synthetic":  # many calls and tokens, as a large graph sends
        monkeypatch.setattr(bulk_module, "MAX_TOKEN_BYTES", 50_000)
        monkeypatch.setattr(bulk_module, "MAX_CALL_BYTES", 200_000)
    tables = {
        "committed": lambda: GraphTables.load(COMMITTED),
        "synthetic": lambda: typed(3000),
        "small": small_tables,
    }[which]()
    unwind, bulk = _load_both(server.store, tables, which)
    ids = tables.nodes["id"].tolist()[::7][:40]
    expected = dump(unwind, ids)
    assert len(expected["nodes"]) == len(tables.nodes)
    assert len(expected["edges"]) == len(tables.edges)
    assert dump(bulk, ids) == expected


@pytest.mark.integration
def test_a_bare_graph_loads_without_provenance(server: FalkorDBServerProcess) -> None:
    tables = GraphTables.load(COMMITTED)
    bare = GraphTables(tables.nodes, tables.edges, {**tables.meta, "provenance": False})
    unwind, bulk = _load_both(server.store, bare, "bare")
    assert "source_ids" not in bulk.schema().property_keys
    assert dump(bulk, []) == dump(unwind, [])


@pytest.mark.integration
def test_bulk_over_tcp_equals_unwind(falkordb_server: int) -> None:
    tables = GraphTables.load(COMMITTED)
    unwind, bulk = _load_both(
        lambda g: FalkorDBStore.connect("127.0.0.1", falkordb_server, graph=g), tables, "tcp"
    )
    try:
        assert dump(bulk, tables.nodes["id"].tolist()[:30]) == dump(
            unwind, tables.nodes["id"].tolist()[:30]
        )
        bulk.load(small_tables())  # a reload replaces the graph (BEGIN needs it gone first)
        assert bulk.last_load.path == "bulk" and bulk.count() == (7, 6)
    finally:
        unwind.close()
        bulk.close()


@pytest.mark.integration
def test_a_refused_bulk_falls_back_to_unwind(server: FalkorDBServerProcess, monkeypatch) -> None:
    store = server.store("refused")
    graph = store._graph
    real = graph.execute_command
    sent: list[str] = []

    def refuse_second_call(*args: Any) -> Any:
        if args[0] == "GRAPH.BULK":
            sent.append(args[0])
            if len(sent) == 2:  # a partial graph is there by now: the fallback starts over
                raise ResponseError("unknown command 'GRAPH.BULK'")
        return real(*args)

    monkeypatch.setattr(graph, "execute_command", refuse_second_call)
    monkeypatch.setattr(bulk_module, "MAX_CALL_BYTES", 100_000)
    tables = typed(2000)
    store.load(tables)
    assert store.last_load.path == "unwind"
    assert "refused GRAPH.BULK: unknown command" in store.last_load.reason
    assert store.count() == (len(tables.nodes), len(tables.edges))


@pytest.mark.integration
def test_tables_the_protocol_cannot_carry_load_through_unwind(
    server: FalkorDBServerProcess,
) -> None:
    tables = small_tables()
    nodes = tables.nodes.copy()
    nodes.loc[nodes["label"] == "Sports Team", "label"] = "Sports:Team"
    store = server.store("colon")
    store.load(GraphTables(nodes, tables.edges, tables.meta))
    assert store.last_load.path == "unwind" and "Sports:Team" in store.last_load.reason
    assert "Sports:Team" in store.schema().node_labels and store.count() == (7, 6)
