"""ace_lab.arc.budget: the frozen budget, its bounds and budget labels (ArcRAG's names and
registry entries: tests/arc/test_specs.py)."""

from __future__ import annotations

import dataclasses

import pytest

from ace_lab.arc.budget import Budget
from ace_lab.bounded import ConfigError


def test_budget_defaults_are_the_papers_and_frozen():
    b = Budget()
    assert (b.passes, b.explorers, b.explorer_turns, b.max_subplans) == (6, 2, 3, 4)
    assert b.label == "r3p6"
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.retries = 5  # type: ignore[misc]


@pytest.mark.parametrize("field", ["retries", "passes", "explorer_turns", "max_rows"])
def test_budget_rejects_out_of_bounds_values(field):
    with pytest.raises(ConfigError, match=field):
        Budget(**{field: 0})


def test_budget_labels_round_trip_and_bad_labels_fail():
    assert Budget.parse("r5p1").label == "r5p1"
    assert Budget.parse("r1p3", Budget(max_rows=7)).max_rows == 7
    for bad in ("r3", "p5r3", "r3p5x", "rXpY"):
        with pytest.raises(ValueError, match="budget label"):
            Budget.parse(bad)
    with pytest.raises(ConfigError):
        Budget.parse("r0p5")
