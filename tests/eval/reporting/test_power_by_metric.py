"""ace_lab.eval.reporting.power_by_metric: the difference each metric can detect at its n."""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.eval.reporting.power_by_metric import power_by_metric


def _frame(metric: str, runs: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"method": method, "id": f"q{i}", metric: value}
            for method, values in runs.items()
            for i, value in enumerate(values)
        ]
    )


def test_a_noisier_metric_needs_more_questions():
    answered = _frame("f1", {"ref": [0, 1, 0, 1, 0, 1], "m": [1, 0, 1, 0, 1, 1]})
    evidence = _frame("passage_recall", {"ref:b": [0.5] * 6, "m:b": [0.5, 0.6, 0.5, 0.6, 0.5, 0.5]})
    table = power_by_metric(
        {"S": {"answered": answered, "evidence": evidence}},
        [("R", "ref", "ref:b"), ("M", "m", "m:b")],
    ).set_index("metric")
    assert set(table.index) == {"f1", "passage_recall"}  # no coverage column: no row
    assert table.loc["f1", "needs a reader"] and not table.loc["passage_recall", "needs a reader"]
    assert table.loc["f1", "n"] == 6
    f1, recall = table.loc["f1"], table.loc["passage_recall"]
    assert f1["paired sd"] > recall["paired sd"]
    assert f1["detectable difference"] > recall["detectable difference"]
    assert f1["n for 0.05"] > recall["n for 0.05"]
    assert recall["paired sd"] == pytest.approx(pd.Series([0, 0.1, 0, 0.1, 0, 0]).std())


def test_methods_that_never_differ_are_left_out():
    same = _frame("f1", {"ref": [1, 0, 1], "m": [1, 0, 1]})
    assert power_by_metric({"S": {"answered": same}}, [("R", "ref", "x"), ("M", "m", "y")]).empty
