"""ace_lab.eval.reporting.evidence: evidence tables, budget curves and the area under them."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ace_lab.eval.reporting.evidence import (
    budget_auc,
    budget_curves,
    budget_of,
    evidence_table,
    metric_values,
    per_question_auc,
)


def _records(method: str, covered: list[bool | None], recall: list[float]) -> list[dict]:
    return [
        {
            "method": method,
            "id": f"q{i}",
            "answer_coverage": c,
            "passage_recall": r,
            "context_tokens": 100.0,
            "context_llm_tokens": 10.0 * i,
        }
        for i, (c, r) in enumerate(zip(covered, recall, strict=True))
    ]


@pytest.fixture
def sweep() -> pd.DataFrame:
    rows = []
    # naive finds q0 at every budget, q1 only from 600 on; hirag finds q0 only at 600
    rows += _records("naive:b300", [True, False], [0.5, 0.0])
    rows += _records("naive:b600", [True, True], [1.0, 0.5])
    rows += _records("hirag:b300", [False, False], [0.0, 0.0])
    rows += _records("hirag:b600", [True, False], [0.5, 0.0])
    return pd.DataFrame(rows)


def test_budget_of_reads_the_name_token():
    assert budget_of("naive:b600") == ("naive", 600)
    assert budget_of("ace-full:b300") == ("ace-full", 300)
    assert budget_of("arcrag:strict+r1p1+b600@openie") == ("arcrag:strict+r1p1@openie", 600)
    assert budget_of("hirag") == ("hirag", None)


def test_coverage_falls_back_on_older_records_column():
    frame = pd.DataFrame(
        [{"id": "a", "context_has_answer": True}, {"id": "b", "context_has_answer": None}]
    )
    assert metric_values(frame, "answer_coverage").to_dict() == {"a": 1.0}


def test_evidence_table_gives_intervals_that_never_collapse(sweep):
    table = evidence_table(sweep, ["hirag:b300"])
    assert table.loc[0, "n"] == 2
    # 0 of 2 covered: a Wilson interval, not [0, 0]
    mean, bounds = table.loc[0, "answer_coverage"].split(" ", 1)
    assert float(mean) == 0.0 and bounds != "[0.000, 0.000]"
    assert table.loc[0, "context_llm_tokens"] == 5.0


def test_curves_and_areas(sweep):
    curves = budget_curves(sweep)
    naive = curves[(curves["method"] == "naive") & (curves["metric"] == "answer_coverage")]
    assert naive["budget"].tolist() == [300, 600] and naive["mean"].tolist() == [0.5, 1.0]
    auc = per_question_auc(sweep, "naive", "answer_coverage")
    assert auc.to_dict() == {"q0": 1.0, "q1": 0.5}
    assert per_question_auc(sweep, "hirag", "answer_coverage").to_dict() == {"q0": 0.5, "q1": 0.0}
    table = budget_auc(sweep, "answer_coverage", reference="naive")
    hirag = table[table["method"] == "hirag"].iloc[0]
    assert hirag["n_paired"] == 2
    assert hirag["diff vs naive [95% CI]"].startswith("-0.500")
    assert not math.isnan(hirag["p_holm"])
    assert per_question_auc(
        sweep[sweep["method"] != "naive:b600"], "naive", "answer_coverage"
    ).empty
