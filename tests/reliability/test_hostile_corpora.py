"""Hostile corpora and questions: a clear DataError naming file and record, or handled in full."""

from __future__ import annotations

import pytest

from tests.reliability.hostile_corpora import BASE, DIR, Q1, Case, attempt, measure
from tests.reliability.scale import full_scale

pytestmark = pytest.mark.reliability


def test_hostile_corpora_and_questions_hold() -> None:
    [row] = measure(full_scale())
    assert row["failed"] == 0, row["note"]
    assert row["held"] == row["attempts"] >= 50


def test_an_attempt_fails_on_a_missing_error_or_an_unexpected_one() -> None:
    """The measure itself: a set that loads where an error was due, or the reverse, fails."""
    assert attempt(Case("loads", BASE, [Q1], ("corpus.json", 0))) is not None
    assert attempt(Case("no corpus", DIR, [Q1])) is not None
    assert attempt(Case("wrong record", [BASE[0], {"id": "p2"}], [Q1], ("corpus.json", 0)))
    assert attempt(Case("right record", [BASE[0], {"id": "p2"}], [Q1], ("corpus.json", 1))) is None
