"""ace_lab.graph.store.falkordb: a real embedded FalkorDB, the read-only paths, caps, timeouts."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from ace_lab.graph.store import (
    FalkorDBServerProcess,
    FalkorDBStore,
    GraphSchema,
    QueryTimeout,
    ServerLimits,
    StoreError,
    UnsafeQueryError,
    WriteQueryError,
)
from ace_lab.graph.tables import GraphTables
from tests.support.graphs import small_tables
from tests.support.processes import pid_alive

pytestmark = pytest.mark.integration


def complete_tables(n: int) -> GraphTables:
    """A complete directed graph: variable-length paths explode combinatorially."""
    nodes = [{"id": f"k{i}", "label": "Entity", "name": f"k{i}"} for i in range(n)]
    edges = [
        {"id": f"k{i}-{j}", "source": f"k{i}", "target": f"k{j}", "type": "RELATED"}
        for i in range(n)
        for j in range(n)
        if i != j
    ]
    return GraphTables.from_records(nodes, edges)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FalkorDBServerProcess]:
    """ONE embedded server for the whole file; teardown checks it really went away."""
    srv = FalkorDBServerProcess(tmp_path_factory.mktemp("falkordb")).start()
    pid = srv.pid
    yield srv
    srv.stop()
    assert not srv.running
    assert pid is not None and not pid_alive(pid)


@pytest.fixture(scope="module")
def store(server: FalkorDBServerProcess) -> Iterator[FalkorDBStore]:
    st = server.store("small")
    st.load(small_tables())
    yield st
    st.close()


@pytest.fixture(scope="module")
def dense(server: FalkorDBServerProcess) -> FalkorDBStore:
    st = server.store("dense")
    st.load(complete_tables(60))
    return st


# ----------------------------------------------------------------------------- loading
def test_load_counts_and_properties(store: FalkorDBStore) -> None:
    assert store.count() == (7, 6)
    by_label = store.read("MATCH (n) RETURN labels(n)[0] AS l, count(n) AS c ORDER BY l").rows
    assert {r["l"]: r["c"] for r in by_label} == {
        "Chunk": 2,
        "Entity": 3,
        "Person": 1,
        "Sports Team": 1,
    }
    person = store.read("MATCH (p:Person) RETURN p").rows[0]["p"]
    assert person["_labels"] == ["Person"]
    assert person["name"] == "Georg Cantor" and person["source_ids"] == ["c1", "c2"]
    chunk = store.read("MATCH (c:Chunk {id: $id}) RETURN c.description AS d", {"id": "c1"})
    assert chunk.rows == [{"d": 'Cantor\'s "set" text'}]
    rel = store.read("MATCH (:Entity {id: 'e1'})-[r:RELATED]->(b) RETURN r, b.id AS b").rows[0]
    assert rel["b"] == "e2" and rel["r"]["_type"] == "RELATED" and rel["r"]["weight"] == 0.5
    team = store.read("MATCH (:`Sports Team`)-[:RELATED]->(p:Person) RETURN p.id AS id").rows
    assert team == [{"id": "p1"}]


def test_load_replaces_content(server: FalkorDBServerProcess) -> None:
    st = server.store("reload")
    st.load(small_tables())
    st.load(small_tables())
    assert st.count() == (7, 6)
    st.load(GraphTables.from_records([], []))
    assert st.count() == (0, 0)
    assert st.schema().node_labels == ()


def test_schema(store: FalkorDBStore) -> None:
    schema = store.schema()
    assert isinstance(schema, GraphSchema)
    assert schema.node_labels == ("Chunk", "Entity", "Person", "Sports Team")
    assert schema.relationship_types == ("MENTIONS", "RELATED")
    assert {"id", "name", "description", "source_ids", "weight", "predicate"} <= set(
        schema.property_keys
    )


def test_two_graphs_in_one_server_are_independent(
    server: FalkorDBServerProcess, store: FalkorDBStore, dense: FalkorDBStore
) -> None:
    assert store.count() == (7, 6)
    assert dense.count() == (60, 60 * 59)
    assert {"small", "dense"} <= set(server.graphs())
    other = server.store("other")
    other.load(complete_tables(3))
    assert other.count() == (3, 6) and store.count() == (7, 6)


# ----------------------------------------------------------------------------- read-only guard
WRITES = [
    "CREATE (n:Entity {id: 'x'})",
    "MERGE (n:Entity {id: 'e1'}) RETURN n",
    "MATCH (n) SET n.name = 'x'",
    "MATCH (n:Chunk) DELETE n",
    "MATCH (n) DETACH DELETE n",
    "match (n) remove n.name",
    "LOAD CSV FROM 'file:///x.csv' AS row RETURN row",
    "DROP INDEX ON :Entity(id)",
    "MATCH (n) WITH collect(n) AS ns FOREACH (m IN ns | SET m.x = 1)",
    "CALL db.idx.fulltext.createNodeIndex('Entity', 'name')",
    "MATCH (n) RETURN n; MATCH (m) DETACH DELETE m",
]


@pytest.mark.parametrize("cypher", WRITES)
def test_guard_rejects_writes_before_execution(store: FalkorDBStore, cypher: str) -> None:
    before = store.count()
    with pytest.raises(WriteQueryError):
        store.read(cypher)
    assert store.count() == before


def test_server_side_read_only_path_is_a_backstop(store: FalkorDBStore) -> None:
    """Even a write that slipped past the scanner is refused by GRAPH.RO_QUERY."""
    with pytest.raises(WriteQueryError):
        store._execute("CREATE (:Entity {id: 'sneaky'})", {}, 1000, 10)
    assert store.count() == (7, 6)


def test_keywords_inside_literals_identifiers_and_comments_are_allowed(
    store: FalkorDBStore,
) -> None:
    result = store.read(
        "MATCH (n) // set me\n"
        "WHERE n.name = \"Set theory\" OR n.name = 'Create Labs' OR n.description CONTAINS 'set'"
        " RETURN n.id AS id, n.name AS `delete` ORDER BY id"
    )
    assert [r["id"] for r in result.rows] == ["c1", "e1", "e3"]
    assert result.columns == ("id", "delete")
    assert store.read("CALL db.labels() YIELD label RETURN label ORDER BY label").rows


# ----------------------------------------------------------------------------- caps & timeouts
def test_max_rows_truncates(store: FalkorDBStore) -> None:
    capped = store.read("MATCH (n) RETURN n.id AS id", max_rows=3)
    assert len(capped.rows) == 3 and capped.truncated
    full = store.read("MATCH (n) RETURN n.id AS id", max_rows=7)
    assert len(full.rows) == 7 and not full.truncated
    union = "MATCH (n:Chunk) RETURN n.id AS id UNION MATCH (m:Entity) RETURN m.id AS id"
    assert len(store.read(union).rows) == 5
    capped_union = store.read(union, max_rows=2)  # no LIMIT appended: capped client-side
    assert len(capped_union.rows) == 2 and capped_union.truncated


def test_runaway_query_times_out(dense: FalkorDBStore) -> None:
    start = time.perf_counter()
    with pytest.raises(QueryTimeout):
        dense.read("MATCH p=(a)-[*]->(b) RETURN count(p)", timeout_ms=200)
    assert time.perf_counter() - start < 3.0
    assert dense.count() == (60, 60 * 59)  # the server is still serving


def test_missing_graph_is_a_clear_error(server: FalkorDBServerProcess) -> None:
    st = server.store("never_loaded")
    assert st.schema() == GraphSchema((), (), ())
    with pytest.raises(StoreError, match="does not exist"):
        st.read("MATCH (n) RETURN n")


def test_external_connect_failure_is_a_store_error() -> None:
    with pytest.raises(StoreError):
        FalkorDBStore.connect("127.0.0.1", 1, "g", socket_connect_timeout=1)


# ----------------------------------------------------------------------------- hardening
def test_the_server_runs_with_its_load_time_limits(server: FalkorDBServerProcess) -> None:
    limits = ServerLimits()
    config = dict(server.client.connection.execute_command("GRAPH.CONFIG", "GET", "*"))
    assert config["TIMEOUT_MAX"] == limits.timeout_max_ms
    assert config["TIMEOUT_DEFAULT"] == limits.timeout_default_ms
    assert config["RESULTSET_SIZE"] == limits.resultset_size
    assert config["QUERY_MEM_CAPACITY"] == limits.query_mem_mb * 1024 * 1024


def test_an_explicit_huge_limit_is_bounded_before_execution(dense: FalkorDBStore) -> None:
    """Regression: ``LIMIT 100000000`` skipped the row cap (23.6 s on a large graph)."""
    sent: list[str] = []
    execute = dense._execute

    def spy(cypher: str, *args: object) -> tuple[list[str], list[list[object]]]:
        sent.append(cypher)
        return execute(cypher, *args)  # type: ignore[arg-type]

    dense._execute = spy  # type: ignore[method-assign]
    try:
        start = time.perf_counter()
        result = dense.read("MATCH (a),(b) RETURN a.id, b.id LIMIT 100000000", max_rows=50)
    finally:
        del dense._execute
    assert len(result.rows) == 50 and result.truncated
    assert sent == ["MATCH (a),(b) RETURN a.id, b.id LIMIT 51"]
    assert time.perf_counter() - start < 2.0


def test_a_nul_byte_cannot_cut_off_the_limit(dense: FalkorDBStore) -> None:
    """Regression: FalkorDB stopped reading at the NUL, so the appended LIMIT was ignored."""
    with pytest.raises(UnsafeQueryError, match="control character"):
        dense.read("MATCH (a),(b) RETURN a.id, b.id LIMIT 100000000\x00")


def test_a_huge_range_is_refused_before_it_reaches_the_server(store: FalkorDBStore) -> None:
    """Regression: ``range(1, 2000000000)`` was filled while planning (114 s, 21.6 GB)."""
    start = time.perf_counter()
    with pytest.raises(UnsafeQueryError, match="range"):
        store.read("UNWIND range(1, 2000000000) AS x RETURN sum(x)", timeout_ms=500)
    assert time.perf_counter() - start < 0.5


def test_a_sub_millisecond_timeout_is_still_a_timeout(dense: FalkorDBStore) -> None:
    """Regression: ``timeout_ms=0.5`` became 0, which FalkorDB reads as "no timeout"."""
    start = time.perf_counter()
    with pytest.raises(QueryTimeout):
        dense.read("MATCH p=(a)-[*]->(b) RETURN count(p)", timeout_ms=0.5)
    assert time.perf_counter() - start < 3.0
    assert dense.read("RETURN 1 AS x", timeout_ms=10**9).rows == [{"x": 1}]  # clamped to max


def test_an_unbounded_path_read_stops_within_its_timeout(dense: FalkorDBStore) -> None:
    """Regression: ``MATCH p=(a)-[*]-(b) RETURN p`` ran 7.8 s with a 500 ms timeout."""
    start = time.perf_counter()
    try:
        result = dense.read("MATCH p=(a)-[*]-(b) RETURN p", timeout_ms=500)
        assert len(result.rows) <= 1000
    except StoreError:
        pass  # a timeout, or the reply was too large: either way it stopped
    limit = 0.5 + ServerLimits().grace_ms / 1000 + 1.0
    assert time.perf_counter() - start < limit
    assert dense.count() == (60, 60 * 59)


@pytest.mark.parametrize(
    "cypher",
    [
        "LOAD CSV FROM 'https://example.com/x.csv' AS row RETURN row",
        "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
        "CREATE INDEX FOR (n:Entity) ON (n.name)",
    ],
)
def test_the_server_path_refuses_load_csv_without_the_guard(
    store: FalkorDBStore, cypher: str
) -> None:
    """Regression: LOAD CSV ran under GRAPH.RO_QUERY; only the regex guard stopped it."""
    with pytest.raises(WriteQueryError):
        store._execute(cypher, {}, 1000, 10)
    assert store.count() == (7, 6)


def test_odd_parameter_names_are_store_errors(store: FalkorDBStore) -> None:
    """Regression: they raised the client's bare ValueError."""
    for params in ({"a b": 1}, {"a`b": 1}, {"": 1}, {"x": "\x00"}):
        with pytest.raises(UnsafeQueryError):
            store.read("RETURN 1 AS x", params)
    for params in ({"a`b": 1}, {"": 1}):
        with pytest.raises(StoreError):  # the low-level path, with no validation before it
            store._execute("RETURN 1 AS x", params, 1000, 10)
    got = store.read("MATCH (n {id: $id}) RETURN n.name AS set", {"id": "e1"}).rows
    assert got == [{"set": "Set theory"}]


def test_columns_aliased_like_writes_run(store: FalkorDBStore) -> None:
    """Regression: the guard rejected ``AS set``, ``AS merge``, ``AS drop``, ... ."""
    cypher = (
        "MATCH (n:Entity) RETURN n.id AS set, n.name AS merge, n.type AS drop, "
        "n.level AS remove, 1 AS detach ORDER BY set"
    )
    rows = store.read(cypher).rows
    assert [r["set"] for r in rows] == ["e1", "e2", "e3"] and rows[0]["detach"] == 1


def test_max_rows_must_stay_below_the_servers_result_cap(store: FalkorDBStore) -> None:
    with pytest.raises(ValueError):
        store.read("MATCH (n) RETURN n", max_rows=ServerLimits().resultset_size)
