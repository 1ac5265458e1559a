"""ace_lab.eval.reporting.docs_preferences: the win-rate table and counts of a study README,
generated from its committed preference tables, each row with its judge's calibration."""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.eval.reporting.docs_numbers import DocsError
from ace_lab.eval.reporting.docs_preferences import FIGURES


def _row(a, b, criterion, wins_a, wins_b, ties, rate, low, high):
    return {
        "a": a,
        "b": b,
        "criterion": criterion,
        "n": wins_a + wins_b + ties,
        "wins_a": wins_a,
        "wins_b": wins_b,
        "ties": ties,
        "win_rate_a": rate,
        "win_rate_low": low,
        "win_rate_high": high,
        "first_shown": 0.8125,
        "judge_calibration": "judge not calibrated",
    }


@pytest.fixture
def study(tmp_path):
    folder = tmp_path / "qfs-n8-s0"
    folder.mkdir()
    rows = [
        _row("full", "naive", "Overall", 1, 0, 7, 0.5625, 0.5, 0.6875),
        _row("full", "naive", "Diversity", 2, 0, 6, 0.625, 0.5, 0.8),
        _row("adaptive", "full", "Overall", 0, 3, 5, 0.3125, 0.125, 0.4375),
    ]
    pd.DataFrame(rows).to_csv(folder / "prefs.csv", index=False)
    return tmp_path


def test_win_rates_turn_pairs_stored_the_other_way_and_carry_the_judge(study):
    lines = FIGURES["win_rates"](study, ("qfs-n8-s0", "full", "prefs")).splitlines()
    assert lines[0].endswith("| judge calibration |")
    assert (
        lines[2] == "| `naive` | 1 / 0 / 7 | 0.562 [0.500, 0.688] | 0.81 | judge not calibrated |"
    )
    assert (
        lines[3]
        == "| `adaptive` | 3 / 0 / 5 | 0.688 [0.562, 0.875] | 0.81 | judge not calibrated |"
    )


def test_wins_counts_one_pair_and_unknown_pairs_are_errors(study):
    assert (
        FIGURES["wins"](study, ("qfs-n8-s0", "full", "naive", "prefs"))
        == "1 wins, 0 losses, 7 ties"
    )
    with pytest.raises(DocsError, match="no Overall row"):
        FIGURES["wins"](study, ("qfs-n8-s0", "naive", "full", "prefs"))
    with pytest.raises(DocsError, match="no judged pair"):
        FIGURES["win_rates"](study, ("qfs-n8-s0", "other", "prefs"))
