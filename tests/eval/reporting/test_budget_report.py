"""ace_lab.eval.reporting.budget_report: the tables of a budget sweep, and none without one."""

from __future__ import annotations

import pandas as pd

from ace_lab.eval.reporting.budget_report import budget_tables


def _records(method: str, recall: list[float]) -> list[dict]:
    return [
        {"method": method, "id": f"q{i}", "answer_coverage": r > 0, "passage_recall": r}
        for i, r in enumerate(recall)
    ]


def test_a_sweep_gives_curves_and_the_areas_under_them():
    rows = _records("naive:b300", [0.5, 0.0]) + _records("naive:b1500", [1.0, 0.5])
    rows += _records("hirag:b300", [0.0, 0.0]) + _records("hirag:b1500", [0.5, 0.5])
    made = budget_tables(pd.DataFrame(rows))
    assert set(made) == {"budget_curves", "budget_auc"}
    assert set(made["budget_auc"]["method"]) == {"naive", "hirag"}
    assert set(made["budget_curves"]["budget"]) == {300, 1500}


def test_a_study_at_one_budget_has_no_sweep_and_no_error():
    # The pooled-corpus studies run every method at the shared budget alone.
    rows = _records("naive:b1500", [1.0, 0.5]) + _records("hirag:b1500", [0.5, 0.5])
    assert budget_tables(pd.DataFrame(rows)) == {}
