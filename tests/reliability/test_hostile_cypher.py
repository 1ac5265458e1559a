"""Hostile Cypher through GraphStore.read: nothing written, explosive reads stopped, no false
positives (the rows of bench/reliability.py), plus the guard alone under generated spellings."""

from __future__ import annotations

import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ace_lab.graph.store import EmbeddedFalkorDB
from tests.reliability.hostile_cypher import (
    EXPLOSIVE,
    FALSE_POSITIVES,
    WRITES,
    _pre_execution_refuses,
    fingerprint,
    run,
)
from tests.reliability.hostile_queries import LEGITIMATE_READS, WRITE_ATTEMPTS
from tests.reliability.scale import full_scale
from tests.support.graphs import small_tables

pytestmark = pytest.mark.reliability

MEANT = [(cypher, params) for cypher, params, meant in WRITE_ATTEMPTS if meant]


@pytest.mark.integration
def test_hostile_cypher_rows_hold() -> None:
    full = full_scale()
    rows = {row["property"]: row for row in run(full)}
    for row in rows.values():
        assert row["failed"] == 0, "\n".join(row["failures"])
        assert row["held"] == row["attempts"]
    assert rows[WRITES]["attempts"] >= (200 if full else 35)
    assert rows[EXPLOSIVE]["attempts"] >= (15 if full else 5)
    assert rows[FALSE_POSITIVES]["attempts"] == len(LEGITIMATE_READS) >= 40


@settings(derandomize=True, max_examples=300 if full_scale() else 60, deadline=None)
@given(
    attempt=st.sampled_from(MEANT),
    cases=st.lists(st.booleans(), min_size=1, max_size=200),
    gaps=st.lists(st.sampled_from([" ", "  ", "\n", "\t", " /* x */ ", " // y\n"]), min_size=1),
)
def test_the_guard_alone_refuses_every_write_however_spelt(
    attempt: tuple[str, dict | None], cases: list[bool], gaps: list[str]
) -> None:
    """Random case on every letter and any whitespace or comment between tokens (outside
    literals, where FalkorDB reads them alike): the guard refuses before execution."""
    from ace_lab.graph.store.cypher_text import mask

    cypher, params = attempt
    masked = mask(cypher)
    out, k = [], 0
    for i, ch in enumerate(cypher):
        code = masked[i] == ch
        if code and ch == " " and (i == 0 or cypher[i - 1] != "\\"):
            out.append(gaps[k % len(gaps)])
            k += 1
        elif code and ch.isalpha():
            out.append(ch.upper() if cases[i % len(cases)] else ch.lower())
        else:
            out.append(ch)
    assert _pre_execution_refuses("".join(out), params)


@pytest.mark.integration
def test_the_fingerprint_sees_any_write() -> None:
    """The measure itself: a real write (through the loading path) changes the fingerprint."""
    with tempfile.TemporaryDirectory() as tmp, EmbeddedFalkorDB(tmp, graph="g") as store:
        store.load(small_tables())
        before = fingerprint(store)
        store._write("MATCH (n:Person) SET n.name = 'x'", {})
        after_set = fingerprint(store)
        store._write("CREATE INDEX FOR (n:Person) ON (n.name)", {})
        after_index = fingerprint(store)
        assert len({before, after_set, after_index}) == 3
        assert before[:2] == after_set[:2] == (7, 6)
