"""ace_lab.eval.reporting.costs: ACE Table 6b over the shared question set, short runs left
out of it, and cold-cache wall times."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ace_lab.eval.reporting import costs, tables
from tests.support.records import result_record, synthetic_results


def test_cost_table_ratios_and_partial_runs():
    df = synthetic_results()
    cost = costs.cost_table(df, ["hirag", "ace-full"], reference="hirag").set_index("method")
    assert cost.loc["ace-full", "input_ratio"] == pytest.approx(2.5)
    assert cost.loc["hirag", "input_ratio"] == 1.0
    assert cost.loc["ace-full", "wall_ratio"] == pytest.approx(3.0)  # 3.0 s vs hirag's 1.0 s
    assert (cost.loc["ace-full", "retrieval_calls"], cost.loc["ace-full", "llm_calls"]) == (3, 2)
    assert set(costs.COST_VIEW) <= {"method", *cost.columns}
    assert tables.cost_table is costs.cost_table and tables.COST_VIEW is costs.COST_VIEW
    # A partial run: means move to the shared questions (every run is short of 10, so all share).
    partial = df[~((df["method"] == "hirag") & (df["id"] == "q0"))].copy()
    partial.loc[(partial["method"] == "ace-full") & (partial["id"] == "q0"), "input_tokens"] = 10**6
    cost = costs.cost_table(partial, ["ace-full"], reference="hirag").set_index("method")
    assert cost.loc["ace-full", "n"] == 5 and cost.loc["ace-full", "input_ratio"] == 2.5
    assert cost.loc["ace-full", "questions"] == costs.SHARED and cost.attrs["note"] == ""
    missing = costs.cost_table(df, ["ace-full"], reference="graphrag")
    assert pd.isna(missing.loc[0, "input_ratio"]) and "graphrag" in missing.attrs["note"]


def _runs(sizes: dict[str, int], tokens: dict[str, int]) -> pd.DataFrame:
    """Runs answering the first ``sizes[m]`` of 20 questions, ``tokens[m]`` input tokens each
    (question 0 costs the reference twice as much, so a one-question ratio differs)."""
    rows = []
    for method, size in sizes.items():
        for i in range(size):
            cost = tokens[method] * (2 if method == "hirag" and i == 0 else 1)
            rows.append(result_record(method, 0, id=f"x{i}", input_tokens=cost))
    return pd.DataFrame(rows)


def test_runs_of_fewer_than_ten_questions_stay_out_of_the_shared_set():
    df = _runs(
        {"hirag": 20, "naive": 12, "mosaic": 1, "arcrag": 5},
        {"hirag": 100, "naive": 150, "mosaic": 300, "arcrag": 50},
    )
    table = costs.cost_table(df, ["hirag", "naive", "mosaic", "arcrag"], reference="hirag")
    cost = table.set_index("method")
    assert list(cost["n"]) == [12, 12, 1, 5]  # not 1: the one-question run does not shrink it
    assert list(cost["questions"]) == [costs.SHARED, costs.SHARED, costs.SHORT, costs.SHORT]
    assert "fewer than 10" in costs.SHORT
    # hirag over x0..x11: (200 + 11 * 100) / 12 = 108.33
    assert cost.loc["hirag", "input_tokens"] == pytest.approx(1300 / 12)
    assert cost.loc["naive", "input_ratio"] == pytest.approx(150 / (1300 / 12))
    # a short run's ratio is against the reference on its own questions: x0 alone, x0..x4
    assert cost.loc["mosaic", "input_ratio"] == pytest.approx(300 / 200)
    assert cost.loc["arcrag", "input_ratio"] == pytest.approx(50 / (600 / 5))
    note = table.attrs["note"]
    assert "fewer than 10 questions" in note and "mosaic (1), arcrag (5)" in note
    # a short run whose questions the reference did not answer has no ratio
    late = _runs({"hirag": 12, "naive": 12}, {"hirag": 100, "naive": 150})
    late = pd.concat([late, _runs({"mosaic": 1}, {"mosaic": 300}).assign(id="y0")])
    cost = costs.cost_table(late, ["naive", "mosaic"], reference="hirag").set_index("method")
    assert math.isnan(cost.loc["mosaic", "input_ratio"]) and cost.loc["naive", "n"] == 12


def test_short_runs_only_where_some_run_reaches_the_minimum():
    frames = {"a": pd.DataFrame(index=range(12)), "b": pd.DataFrame(index=range(3))}
    assert costs.short_runs(frames) == ["b"]
    assert costs.short_runs({"a": pd.DataFrame(index=range(5)), "b": frames["b"]}) == []
    assert costs.MIN_SHARED_QUESTIONS == 10


def test_cost_table_without_a_shared_set_averages_each_run_over_its_own():
    df = _runs({"hirag": 12, "naive": 12}, {"hirag": 100, "naive": 150})
    df.loc[df["method"] == "naive", "id"] = [f"z{i}" for i in range(12)]
    table = costs.cost_table(df, ["hirag", "naive"], reference="hirag")
    assert list(table["questions"]) == [costs.OWN, costs.OWN] and list(table["n"]) == [12, 12]
    assert "no question is shared" in table.attrs["note"]
    assert math.isnan(table.loc[1, "input_ratio"])  # the reference answered none of naive's


def test_cost_table_times_only_answers_made_without_cache_hits():
    rows = [
        result_record("hirag", 0, wall_s=10.0),
        result_record("hirag", 1, wall_s=0.01, cache_hits=1),
    ]
    table = costs.cost_table(pd.DataFrame(rows), ["hirag"]).iloc[0]
    assert table["wall_s"] == 10.0 and table["wall_n"] == 1 and table["n"] == 2
    assert math.isnan(table["server_cached_tokens"])  # runs recorded before it was kept
    rows = [
        result_record("m", 0, server_cached_tokens=300),
        result_record("m", 1, server_cached_tokens=100),
    ]
    table = costs.cost_table(pd.DataFrame(rows), ["m"], reference="m").iloc[0]
    assert table["server_cached_tokens"] == 200
    assert costs.cold_wall(pd.DataFrame(rows))["wall_n"] == 2
