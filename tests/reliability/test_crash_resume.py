"""kill -9 during a graph build and an evaluation run, then resume: nothing lost, duplicated or
corrupt, and the same output as an uninterrupted run (counts: ``tests.reliability.scale``)."""

from __future__ import annotations

import pytest

from tests.reliability.crash_resume import measure
from tests.reliability.scale import full_scale


@pytest.mark.reliability
def test_kill_9_during_a_build_and_a_run_loses_nothing():
    rows = measure(full_scale())
    assert [r["property"] for r in rows] == [
        "kill -9 during a graph build",
        "kill -9 during an evaluation run",
    ]
    for row in rows:
        assert row["attempts"] >= (20 if full_scale() else 4), row
        assert row["failed"] == 0 and row["held"] == row["attempts"], row
