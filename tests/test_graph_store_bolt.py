"""ace_lab.graph.store.bolt: the guard before any connection, the read path on a fake driver."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from ace_lab.graph.store import BoltStore, QueryTimeout, StoreError, WriteQueryError, open_store
from tests.conftest import small_tables

pytestmark = pytest.mark.integration


def test_bolt_guard_runs_before_any_connection() -> None:
    """No server needed: the guard rejects writes before the driver is touched."""
    store = open_store("bolt", uri="bolt://127.0.0.1:1", auth=("neo4j", "x"))
    assert isinstance(store, BoltStore)
    with store, pytest.raises(WriteQueryError):
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


@pytest.mark.skip(reason="needs a running Neo4j/Memgraph server; none is available offline")
def test_bolt_roundtrip() -> None:  # pragma: no cover - documents the intended check
    with BoltStore("bolt://localhost:7687", auth=("neo4j", "password")) as store:
        store.load(small_tables())
        assert store.count() == (7, 6)
        with pytest.raises(QueryTimeout):
            store.read("MATCH p=(a)-[*]->(b) RETURN count(p)", timeout_ms=200)


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
