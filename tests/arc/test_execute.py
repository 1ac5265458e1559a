"""ace_lab.arc.execute: every ArcRAG query is bounded, read-only, timed and recorded; a bad
query (empty, a write, a timeout) becomes an error in its record, never an exception."""

from __future__ import annotations

import pytest

from ace_lab.arc.execute import MAX_HOPS, TRACE_ROWS, bound_paths, query_log, run_cypher
from ace_lab.graph.store import QueryTimeout, ReadResult
from ace_lab.trace import Trace


@pytest.mark.parametrize(
    ("cypher", "expected"),
    [
        ("MATCH p=(a)-[*]->(b) RETURN p", "MATCH p=(a)-[*1..4]->(b) RETURN p"),
        ("MATCH (a)<-[r:X*2..]-(b) RETURN a", "MATCH (a)<-[r:X*2..4]-(b) RETURN a"),
        ("MATCH (a)-[*..9]-(b) RETURN a", "MATCH (a)-[*1..4]-(b) RETURN a"),
        ("MATCH (a)-[*7]-(b) RETURN a", "MATCH (a)-[*4..4]-(b) RETURN a"),
    ],
)
def test_unbounded_and_too_long_paths_are_bounded(cypher, expected):
    out, note = bound_paths(cypher)
    assert out == expected and note and str(MAX_HOPS) in note


@pytest.mark.parametrize(
    "cypher",
    [
        "MATCH (a)-[*1..3]-(b) RETURN a",
        "MATCH (a)-[r*2]->(b) RETURN a",
        "MATCH (a) WHERE a.x = '-[*]-' RETURN a",  # a literal, not a pattern
        "MATCH (a) RETURN count(*) * 2 AS n",
    ],
)
def test_bounded_paths_and_non_patterns_are_left_alone(cypher):
    assert bound_paths(cypher) == (cypher, None)


class SlowStore:
    """A store whose every read times out (what the real store raises past timeout_ms)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def read(self, cypher, params=None, timeout_ms=0, max_rows=0):
        self.calls.append((cypher, timeout_ms, max_rows))
        raise QueryTimeout("Query timed out")


class FixedStore:
    def read(self, cypher, params=None, timeout_ms=0, max_rows=0):
        rows = [{"n": i} for i in range(max_rows)]
        return ReadResult(("n",), rows, truncated=True, elapsed_ms=1.5)


def test_a_timeout_is_recorded_with_the_budget_it_ran_under():
    store = SlowStore()
    trace = Trace()
    with trace.activate(), trace.step("cypher:x") as step, query_log() as log:
        rec = run_cypher(store, "MATCH (n) RETURN n", {"k": 1}, timeout_ms=7, max_rows=3)
    assert not rec.ok and rec.error.startswith("QueryTimeout")
    assert store.calls == [("MATCH (n) RETURN n", 7, 3)]
    assert step.queries == ["MATCH (n) RETURN n"]
    logged = log[0].recorded()
    assert logged.error == rec.error and logged.params == {"k": 1} and logged.n_rows == 0


def test_truncation_and_row_counts_are_recorded():
    trace = Trace()
    with trace.activate(), trace.step("cypher:x"), query_log() as log:
        rec = run_cypher(FixedStore(), "MATCH (n) RETURN n", timeout_ms=5, max_rows=40)
        run_cypher(FixedStore(), "MATCH (m) RETURN m", timeout_ms=5, max_rows=1, record=False)
    assert rec.truncated and rec.n_rows == 40
    assert log == [rec]  # a query run with record=False is not logged
    logged = rec.recorded()
    assert logged.truncated and logged.n_rows == 40 and len(logged.rows) == TRACE_ROWS


def test_empty_query_is_an_error_not_a_call():
    store = SlowStore()
    rec = run_cypher(store, "   ", timeout_ms=5, max_rows=5)
    assert rec.error.startswith("EmptyQuery") and store.calls == []


def test_writes_are_refused_by_the_store_and_recorded(typed_graph):
    store = typed_graph.store
    before = store.count()
    for cypher in (
        "MATCH (n) DETACH DELETE n",
        "CREATE (:X {a: 1}) RETURN 1",
        "MATCH (n) SET n.a = 1 RETURN n",
        "CALL db.idx.fulltext.createNodeIndex('X', 'a')",
    ):
        rec = run_cypher(store, cypher, timeout_ms=1000, max_rows=5)
        assert not rec.ok and "WriteQueryError" in rec.error, cypher
    assert store.count() == before


def test_unbounded_path_runs_bounded_on_the_store(typed_graph):
    rec = run_cypher(
        typed_graph.store, "MATCH p=(a)-[*]-(b) RETURN count(p) AS n", timeout_ms=5000, max_rows=5
    )
    assert rec.ok and rec.rewritten and "*1..4" in rec.text and rec.rows[0]["n"] > 0
