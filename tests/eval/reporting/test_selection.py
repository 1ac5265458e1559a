"""ace_lab.eval.reporting.selection: the methods, rows and shared questions a table reads."""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.eval.reporting import selection
from tests.support.records import result_record


def _frame() -> pd.DataFrame:
    rows = [
        result_record("ace-full", 0, f1=0.5),
        result_record("hirag", 0, f1=0.2),
        result_record("hirag", 1, f1=None),
        result_record("hirag", 0, f1=0.9),  # a rerun of q0: the last record counts
        result_record("ace-full", 2, f1=1.0),
    ]
    return pd.DataFrame(rows)


def test_select_methods_in_registry_order_or_as_named():
    df = _frame()
    assert selection.select_methods(df, None) == ["hirag", "ace-full"]  # baselines first
    assert selection.select_methods(df, ["ace-full"]) == ["ace-full"]
    with pytest.raises(KeyError, match="graphrag"):
        selection.select_methods(df, ["graphrag"])
    assert selection.select_methods(pd.DataFrame(), None) == []


def test_rows_per_question_and_shared_ids():
    df = _frame()
    assert list(selection.method_rows(df, "hirag")["f1"].fillna(-1)) == [-1, 0.9]
    hirag = selection.per_question(df, "hirag", "f1")
    assert hirag.to_dict() == {"q0": 0.9}  # q1 has no F1
    full = selection.per_question(df, "ace-full", "f1")
    assert selection.common_ids([full, hirag]) == ["q0"]
    assert selection.common_ids([full]) == ["q0", "q2"] and selection.common_ids([]) == []
