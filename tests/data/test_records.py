"""Tests for ace_lab.data.records: questions' answers and the lookups of a loaded set."""

from __future__ import annotations

import pytest

from ace_lab.data import DataError, Dataset, Passage, Question, load_dataset


def test_answers_and_lookups() -> None:
    gold = Question("q1", "Who?", "Ilse", ("Ilse Marrin",), ("p1",), "bridge", "x")
    assert gold.answers == ("Ilse", "Ilse Marrin")
    assert Question("q2", "Why?", None, (), (), None, "x").answers == ()
    ds = Dataset("tiny", [Passage("p1", "T", "text")], [gold])
    assert ds.passage("p1").title == "T" and ds.question("q1") is gold
    assert ds.position == {"p1": 0}
    with pytest.raises(KeyError, match="no question"):
        ds.question("q9")
    assert issubclass(DataError, ValueError)


def test_unknown_passage_names_the_set() -> None:
    with pytest.raises(KeyError, match="no passage"):
        load_dataset("toy").passage("toy-99")
