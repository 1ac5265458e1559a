"""ace_lab.eval.reporting.revisions: each rerun configuration paired with the row it replaces."""

from __future__ import annotations

import pytest

from ace_lab.eval.reporting import revisions, tables
from ace_lab.eval.statistics.exact import holm
from tests.support.records import synthetic_results

REVISIONS = [
    ("ace-full", "hirag", "the layer over its backbone"),
    ("graphrag", "hirag", "not in these frames"),
]


def test_a_revision_is_paired_with_the_row_it_replaces_in_each_slice():
    df = synthetic_results()
    partial = df.drop(index=0)  # hirag's q0 gone: that slice pairs 5 questions
    table = revisions.revision_table({"A": df, "B": partial}, REVISIONS)
    assert list(table["slice"]) == ["A", "B"]  # graphrag has no run: no row, no error
    assert set(revisions.REVISION_VIEW) <= set(table.columns)
    for label, frame in (("A", df), ("B", partial)):
        row = table.set_index("slice").loc[label]
        paired = tables.paired_tests(frame, "hirag", ["ace-full"]).iloc[0]
        assert row["n"] == paired["n"] and row["ΔF1 [95% CI]"] == paired["diff [95% CI]"]
        assert row["F1"] - row["F1_replaced"] == pytest.approx(paired["diff"])
        ems = tables.paired_tests(frame, "hirag", ["ace-full"], metric="em").iloc[0]
        assert (row["EM"], row["EM_replaced"]) == (ems["EM"], ems["EM_baseline"])
        assert row["replaces"] == "hirag" and row["change"] == REVISIONS[0][2]
    assert table.loc[0, "input_tokens"] == 250  # ace-full's recorded input tokens per question
    assert list(table["p_holm"]) == pytest.approx(holm(list(table["p"])))


def test_no_pair_present_gives_an_empty_table_with_the_view_columns():
    table = revisions.revision_table({"A": synthetic_results()}, [("x", "y", "none")])
    assert table.empty and set(revisions.REVISION_VIEW) <= set(table.columns)
