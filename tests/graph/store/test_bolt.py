"""ace_lab.graph.store.bolt: the guard before any connection, the read path on a fake driver,
and a round trip through a real Neo4j or Memgraph server when ``ACE_LAB_TEST_BOLT_URL`` names
one (e.g. ``ACE_LAB_TEST_BOLT_URL=bolt://neo4j@localhost:7687`` with the password in
``ACE_LAB_GRAPH_STORE_PASSWORD``; the database must be empty or hold ace_lab's test graph)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from ace_lab.config import env_name
from ace_lab.graph.store import BoltStore, QueryTimeout, StoreError, WriteQueryError
from ace_lab.graph.store.url import PASSWORD_ENV, open_graph_store, parse_store_url
from tests.support.graphs import small_tables

pytestmark = pytest.mark.integration


def test_bolt_guard_runs_before_any_connection() -> None:
    """No server needed: the guard rejects writes before the driver is touched."""
    with (
        BoltStore("bolt://127.0.0.1:1", auth=("neo4j", "x")) as store,
        pytest.raises(WriteQueryError),
    ):
        store.read("MATCH (n) DETACH DELETE n")


def test_bolt_unreachable_server_is_a_store_error() -> None:
    with BoltStore("bolt://127.0.0.1:1", auth=("neo4j", "x")) as store, pytest.raises(StoreError):
        store.read("RETURN 1")


class FakeBolt:
    """The slice of the neo4j driver BoltStore uses for reads: records the session settings."""

    def __init__(self, rows: int = 0, error: Exception | None = None) -> None:
        self.rows, self.error = rows, error
        self.calls: list[dict] = []

    def session(self, **kw: object) -> FakeBolt:
        self.calls.append(dict(kw))
        return self

    def begin_transaction(self, timeout: float) -> FakeBolt:
        self.calls[-1]["timeout"] = timeout
        return self

    def run(self, cypher: str, params: dict) -> FakeBolt:
        self.calls[-1]["cypher"] = cypher
        if self.error:
            raise self.error
        return self

    def keys(self) -> list[str]:
        return ["x"]

    def __iter__(self) -> Iterator[SimpleNamespace]:
        return (SimpleNamespace(values=lambda i=i: [i]) for i in range(self.rows))

    def rollback(self) -> None: ...

    def close(self) -> None: ...

    def __enter__(self) -> FakeBolt:
        return self

    def __exit__(self, *exc: object) -> None: ...


def test_bolt_read_path_caps_rows_and_maps_timeouts() -> None:
    import neo4j
    from neo4j.exceptions import Neo4jError

    fake = FakeBolt(rows=10)
    store = BoltStore("bolt://unused", driver=fake)
    result = store.read("UNWIND range(1, 10) AS x RETURN x", timeout_ms=1500, max_rows=4)
    assert result.rows == [{"x": i} for i in range(4)] and result.truncated
    call = fake.calls[-1]
    assert call["default_access_mode"] == neo4j.READ_ACCESS and call["timeout"] == 1.5
    assert call["cypher"].endswith("LIMIT 5")
    timed_out = Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
        message="The transaction has been terminated.",
    )
    with pytest.raises(QueryTimeout):
        BoltStore("bolt://unused", driver=FakeBolt(error=timed_out)).read("RETURN 1")


BOLT_URL_ENV = env_name("test", "bolt_url")


@pytest.mark.skipif(
    not os.environ.get(BOLT_URL_ENV),
    reason=f"needs a Neo4j/Memgraph server: set {BOLT_URL_ENV}=bolt://[user@]host:port[/database] "
    f"(password in {PASSWORD_ENV}), e.g. docker run -p 7687:7687 memgraph/memgraph",
)
def test_bolt_roundtrip() -> None:
    """Load, reuse, read, refuse a write and time out, on the server the variable names."""
    url = parse_store_url(os.environ[BOLT_URL_ENV])
    assert url.kind == "bolt"
    password = os.environ.get(PASSWORD_ENV)
    store, close = open_graph_store(url, small_tables(), "test/bolt", password=password)
    try:
        assert isinstance(store, BoltStore) and store.count() == (7, 6)
        assert store.holds(small_tables())  # a second open reuses the loaded graph
        again, close_again = open_graph_store(url, small_tables(), "test/bolt", password=password)
        close_again()
        assert isinstance(again, BoltStore)
        rows = store.read("MATCH (n) RETURN count(n) AS c").rows
        assert rows == [{"c": 7}]
        with pytest.raises(WriteQueryError):
            store.read("MATCH (n) DETACH DELETE n")
        with pytest.raises(QueryTimeout):
            cypher = "UNWIND range(1, 1000000) AS x UNWIND range(1, 1000000) AS y RETURN count(*)"
            store.read(cypher, timeout_ms=200)
    finally:
        close()


class OneForeignNode(FakeBolt):
    """A database that already holds one node ace_lab did not load; records every write."""

    def __init__(self) -> None:
        super().__init__(rows=1)
        self.writes: list[str] = []

    def keys(self) -> list[str]:
        return ["c"]

    def __iter__(self) -> Iterator[SimpleNamespace]:
        cypher = self.calls[-1].get("cypher", "")
        value = 1 if "count(n)" in cypher else 0
        return iter([SimpleNamespace(values=lambda: [value])])

    def execute_write(self, work: object) -> object:
        self.writes.append("write")
        return 0


def test_a_load_never_deletes_what_it_did_not_write() -> None:
    """Regression: ``load`` ran ``MATCH (n) DETACH DELETE n`` on the whole target database."""
    driver = OneForeignNode()
    with (
        BoltStore("bolt://unused", driver=driver) as store,
        pytest.raises(StoreError, match="did not load"),
    ):
        store.load(small_tables())
    assert driver.writes == []  # the foreign node survives: nothing was written or deleted


def test_replace_clears_a_database_on_purpose() -> None:
    driver = OneForeignNode()
    with BoltStore("bolt://unused", replace=True, driver=driver) as store:
        store.load(small_tables())
    assert driver.writes  # cleared, then loaded
