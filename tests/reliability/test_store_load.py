"""Concurrent Cypher reads from 8 threads on one embedded store: every answer right."""

from __future__ import annotations

import random
import tempfile

import pytest

from ace_lab.graph.store import EmbeddedFalkorDB
from tests.reliability.hostile_cypher import hostile_tables
from tests.reliability.scale import full_scale
from tests.reliability.store_load import THREADS, _checks, _expectations, run

pytestmark = [pytest.mark.reliability, pytest.mark.integration]


def test_concurrent_reads_hold() -> None:
    row = run(full_scale())
    assert row["failed"] == 0, "\n".join(row["failures"][:20])
    assert row["held"] == row["attempts"] >= THREADS * 10


def test_a_wrong_answer_is_caught() -> None:
    """The measure itself: checks against a graph that lost its edges report failures."""
    tables = hostile_tables()
    checks = _checks(_expectations(tables))
    stripped = tables.__class__.from_records(tables.nodes.to_dict("records"), [])
    with tempfile.TemporaryDirectory() as tmp, EmbeddedFalkorDB(tmp, graph="g") as store:
        store.load(stripped)
        rng = random.Random(0)
        wrong = [check(store, rng) for check in checks for _ in range(5)]
    assert sum(w is not None for w in wrong) >= 5
