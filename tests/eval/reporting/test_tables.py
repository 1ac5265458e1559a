"""ace_lab.eval.reporting.tables: the generic result tables on a synthetic results frame with known
answers (``synthetic_results`` in conftest)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ace_lab.eval.metrics.context_stats import CONTEXT_COLUMNS, ORIGIN_COLUMNS
from ace_lab.eval.reporting import pooled as pooling
from ace_lab.eval.reporting import tables
from ace_lab.eval.statistics.exact import holm
from ace_lab.eval.statistics.power import min_detectable_difference
from tests.support.records import result_record, synthetic_results


def test_main_table_and_paired_tests():
    df = synthetic_results()
    main = tables.main_table(df, ["hirag", "ace-full"]).set_index("method")
    assert main.loc["hirag", "EM"] == pytest.approx(2 / 6)
    assert main.loc["ace-full", "EM"] == pytest.approx(4 / 6)
    assert main.loc["ace-full", "n"] == 6
    for m in ("hirag", "ace-full"):
        assert main.loc[m, "EM_low"] <= main.loc[m, "EM"] <= main.loc[m, "EM_high"]
        assert main.loc[m, "F1_low"] <= main.loc[m, "F1"] <= main.loc[m, "F1_high"]
    assert main.loc["hirag", "EM [95% CI]"].startswith("0.333 [")
    assert main.loc["ace-full", "input_tokens"] == 250 and main.loc["ace-full", "wall_s"] == 3.0
    with pytest.raises(KeyError, match="graphrag"):
        tables.main_table(df, ["graphrag"])

    paired = tables.paired_tests(df.drop(index=0), "hirag", ["ace-full"]).iloc[0]
    assert paired["n"] == 5  # hirag's q0 was dropped: only shared questions are paired
    assert paired["diff"] == pytest.approx(2 / 5)
    assert paired["diff_low"] <= paired["diff"] <= paired["diff_high"]
    # differences (+1, 0, 0, +1, 0): 2 of the 4 sign patterns of the two non-zero ones are as
    # extreme, exactly (the zeros do not count)
    assert paired["p_permutation"] == 0.5
    assert paired["p_holm"] == 0.5  # one comparison: nothing to adjust
    # differences (+1, 0, 0, +1, 0): sd = sqrt(0.3) = 0.5477; t with 4 degrees of freedom:
    # (2.7764 + 0.9410) * 0.5477 / sqrt(5) = 0.9106
    assert paired["sd_diff"] == pytest.approx(math.sqrt(0.3))
    assert paired["mde"] == pytest.approx(0.9106, abs=1e-4)
    assert paired["n_for_+0.05"] > 5
    assert set(tables.PAIRED_VIEW) <= set(paired.index)
    assert "p_bootstrap" not in paired.index  # 2–6x too small at this n: not reported


def test_main_table_gives_proportions_wilson_intervals_and_continuous_scores_the_bootstrap():
    df = synthetic_results()
    main = tables.main_table(df).set_index("method")
    fixed = main.loc[main.index[main["EM"] == 0][0]]  # a fixed-policy run: EM 0 on all six
    assert fixed["EM [95% CI]"] == "0.000 [0.000, 0.390]"  # Wilson 0/6, not [0.000, 0.000]
    # its F1 (0.1 ... 0.6) is continuous: a bootstrap interval inside the observed range
    assert 0.1 <= fixed["F1_low"] < fixed["F1"] < fixed["F1_high"] <= 0.6
    assert main.loc["hirag", "F1 [95% CI]"] == main.loc["hirag", "EM [95% CI]"]  # F1 all 0/1
    assert (main["EM_high"] > main["EM_low"]).all()


def test_paired_tests_holm_adjusts_the_comparisons_against_one_baseline():
    df = synthetic_results()
    paired = tables.paired_tests(df, "hirag")
    assert len(paired) > 2
    assert list(paired["p_holm"]) == pytest.approx(holm(list(paired["p_permutation"])))
    assert (paired["p_holm"] >= paired["p_permutation"]).all()


def test_pooled_tests_pool_the_slices_a_pair_shares():
    df = synthetic_results()
    half = df[df["id"].isin(["q0", "q1", "q2"]) | (df["method"] != "hirag")]
    alone = df[df["method"] != "hirag"]
    pooled = pooling.pooled_tests({"A": df, "B": half, "C": alone}, "hirag", ["ace-full"])
    row = pooled.set_index("method").loc["ace-full"]
    assert row["slices"] == "A, B" and row["n"] == 6 + 3  # C has no hirag: not shared
    assert row["n_per_slice"] == "6, 3" and row["n_slice"] == 3
    assert row["diff"] == pytest.approx((2 + 1) / 9)  # A: +1 on q1 and q4; B: +1 on q1
    assert row["p_permutation"] == pytest.approx(2 / 2**3)  # three +1s, exact
    assert row["diff_low"] <= row["diff"] <= row["diff_high"]
    # each slice's own n with the pooled within-slice SD, t quantiles (5 and 2 dof)
    per_slice = [min_detectable_difference(row["sd_diff"], n) for n in (6, 3)]
    assert row["mde_per_slice"] == ", ".join(f"{mde:.3f}" for mde in per_slice)
    assert row["mde_slice"] == pytest.approx(max(per_slice))  # the smallest slice's
    assert row["mde_slice"] > row["mde"] > 0
    assert row["mde"] == pytest.approx(min_detectable_difference(row["sd_diff"], 9))
    assert set(pooling.POOLED_VIEW) <= set(pooled.columns)
    summary = pooling.power_summary(pooled)
    assert "smallest slice a pair shares (3–3 questions)" in summary and "paired t" in summary
    assert pooling.pooled_tests({"C": alone}, "hirag").empty


def test_main_table_by_dataset_puts_data_sets_side_by_side():
    df = synthetic_results()
    first = tables.main_table(df, ["hirag", "ace-full"])
    second = tables.main_table(df, ["ace-full"])
    combined = tables.main_table_by_dataset(
        {"HotpotQA": first, "2Wiki": second}, ["naive", "ace-full", "hirag"]
    )
    assert list(combined["method"]) == ["ace-full", "hirag"]  # in the order given; no naive
    context = [
        *("context_tokens", "passage_recall", "provenance_recall", "answer_coverage"),
        *("supporting_fact_recall", "context_llm_tokens", "format_compliance"),
    ]
    assert list(combined.columns) == [
        "method",
        "HotpotQA n",
        "HotpotQA EM [95% CI]",
        "HotpotQA F1 [95% CI]",
        *(f"HotpotQA {c}" for c in context),
        "2Wiki n",
        "2Wiki EM [95% CI]",
        "2Wiki F1 [95% CI]",
        *(f"2Wiki {c}" for c in context),
    ]
    row = combined.set_index("method").loc["hirag"]
    assert row["2Wiki n"] == 0 and row["2Wiki EM [95% CI]"] == "missing"
    assert math.isnan(row["2Wiki context_tokens"])  # missing numbers stay numeric (empty)
    assert combined["2Wiki context_tokens"].dtype == float
    assert row["HotpotQA EM [95% CI]"].startswith("0.333 [")
    assert combined["2Wiki n"].dtype == int
    assert tables.main_table_by_dataset({}, ["hirag"]).empty


def test_transfer_table_rows_and_paired_difference():
    df = synthetic_results()
    table = tables.transfer_table(df, "hirag", "ace-full")
    assert list(table["method"]) == ["hirag", "ace-full", "Δ ace-full − hirag (paired)"]
    assert list(table["n"]) == [6, 6, 6]
    assert table.loc[1, "EM"] == pytest.approx(4 / 6)
    assert table.loc[2, "EM"] == pytest.approx(2 / 6) and table.loc[2, "F1"] == pytest.approx(2 / 6)
    assert table.loc[2, "F1 [95% CI]"].startswith("+0.333 [")
    assert table["p (permutation)"].isna().tolist() == [True, True, False]
    with pytest.raises(KeyError, match="graphrag"):
        tables.transfer_table(df, "graphrag", "ace-full")


def test_coverage_table():
    df = synthetic_results()
    cov = tables.coverage_table(df, ["ace-full", "hirag"]).set_index("method")
    full = cov.loc["ace-full"]
    assert (full["n"], full["n_uncovered"]) == (5, 2)  # the yes/no question is excluded
    assert full["coverage_initial"] == pytest.approx(3 / 5)
    assert full["coverage_final"] == pytest.approx(4 / 5)
    assert full["recovery"] == pytest.approx(1 / 2)
    assert cov.loc["hirag", "coverage_initial"] == cov.loc["hirag", "coverage_final"] == 1.0
    renamed = cov.reset_index().rename(columns=tables.COVERAGE_LABELS)
    assert {"Initial (C_base)", "Final (C̃)", "Recovery", "initial context"} <= set(renamed)


def _context_frame() -> pd.DataFrame:
    """Two methods whose context columns are known: ``a`` (old records, ``support_recall``
    only) and ``b`` (new records with both recalls); one question is a summary (no gold)."""
    tag, line = "[FINAL_ANSWER] x [/FINAL_ANSWER]", "Result: x"
    rows = [
        result_record("a", 0, context_tokens=100, raw=tag, gold=["x"], support_recall=1.0,
                      passage_recall=0.5),
        result_record("a", 1, context_tokens=300, raw=line, gold=["y"], support_recall=0.5,
                      passage_recall=0.0),
        result_record("a", 2, context_tokens=200, raw="a summary", gold=[]),
        result_record("b", 0, context_tokens=50, raw=line, gold=["x"], provenance_recall=1.0,
                      passage_recall=1.0),
        result_record("b", 1, context_tokens=70, raw=line, gold=["y"], provenance_recall=0.5,
                      passage_recall=0.5),
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_every_table_reports_context_size_recalls_and_format_compliance():
    df = _context_frame()
    main = tables.main_table(df, ["a", "b"]).set_index("method")
    assert main.loc["a", "context_tokens"] == 200 and main.loc["b", "context_tokens"] == 60
    assert main.loc["a", "passage_recall"] == 0.25 and main.loc["a", "provenance_recall"] == 0.75
    assert main.loc["b", "passage_recall"] == 0.75 and main.loc["b", "provenance_recall"] == 0.75
    assert main.loc["a", "format_compliance"] == 0.5  # the summary has no answer tag to use
    assert main.loc["b", "format_compliance"] == 0.0
    assert set(tables.MAIN_VIEW) - set(ORIGIN_COLUMNS) <= {"method", *main.columns}

    paired = tables.paired_tests(df, "a", ["b"]).iloc[0]
    assert paired["n"] == 2  # the summary has no F1, so only two questions pair
    assert (paired["context_tokens"], paired["context_tokens_baseline"]) == (60, 200)
    assert set(tables.PAIRED_VIEW) <= set(paired.index)

    cost = tables.cost_table(df, ["a", "b"], reference="a").set_index("method")
    assert cost.loc["a", "context_tokens"] == 200  # the questions both answered: q0, q1

    transfer = tables.transfer_table(df, "a", "b").set_index("method")
    assert transfer.loc["b", "passage_recall"] == 0.75
    assert transfer.iloc[2][list(CONTEXT_COLUMNS)].isna().all()  # the difference row


def test_coverage_table_reports_both_recalls_over_its_questions():
    df = _context_frame().assign(context_has_answer=[True, False, None, True, True])
    cov = tables.coverage_table(df, ["a", "b"]).set_index("method")
    assert cov.loc["a", "n"] == 2 and cov.loc["a", "context_tokens"] == 200
    assert cov.loc["a", "passage_recall"] == 0.25 and cov.loc["a", "provenance_recall"] == 0.75
    assert cov.loc["b", "passage_recall"] == 0.75
    assert list(cov.columns)[-1] == "initial"


def test_main_tables_show_where_contexts_came_from_only_when_records_say():
    df = synthetic_results()
    assert not set(ORIGIN_COLUMNS) & set(tables.main_table(df).columns)  # old tables unchanged
    origin = {"context_from_model": 0.2, "context_from_template": 0.8, "context_from_fallback": 0}
    df["stats"] = [origin if m == "ace-full" else None for m in df["method"]]
    main = tables.main_table(df, ["hirag", "ace-full"]).set_index("method")
    assert main.loc["ace-full", "context_from_template"] == pytest.approx(0.8)
    assert main.loc["hirag", list(ORIGIN_COLUMNS)].isna().all()  # an empty cell, not a zero
    combined = tables.main_table_by_dataset({"HotpotQA": main.reset_index()}, ["ace-full"])
    assert combined.loc[0, "HotpotQA context_from_model"] == pytest.approx(0.2)
