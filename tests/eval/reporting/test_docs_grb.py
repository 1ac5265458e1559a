"""ace_lab.eval.reporting.docs_grb: the documentation's GraphRAG-Bench tables."""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.eval.reporting.docs_grb import FIGURES
from ace_lab.eval.reporting.docs_numbers import DocsError

OVERALL = "Overall (query-weighted, not an official figure)"


def _row(method, metric, kind, n, mean, calibration):
    return {
        "method": method,
        "metric": metric,
        "type": kind,
        "n": n,
        "mean": mean,
        "judge_calibration": calibration,
    }


def test_every_metric_is_a_column_and_the_judges_calibration_its_last_row(tmp_path):
    acc = "0.62 (n=32) judge uninformative"
    rows = [
        _row("naive", "answer_correctness", "Fact Retrieval", 2, 0.5, acc),
        _row("naive", "answer_correctness", OVERALL, 2, 0.5, acc),
        _row("naive", "rouge_score", OVERALL, 2, 0.25, None),
        _row("naive", "evidence_recall", OVERALL, 0, float("nan"), "judge not calibrated"),
        _row("hirag", "answer_correctness", OVERALL, 1, 0.75, acc),
    ]
    study = tmp_path / "toy-n2-s0"
    study.mkdir()
    pd.DataFrame(rows).to_csv(study / "graphragbench.csv", index=False)
    text = FIGURES["grb_metrics"](tmp_path, ("toy-n2-s0",))
    lines = text.splitlines()
    assert lines[0] == "| method | ACC | ROUGE-L | Evidence Recall |"
    assert lines[2] == "| `naive` | 0.500 (2) | 0.250 (2) | — |"  # nothing scored: a dash
    assert lines[3] == "| `hirag` | 0.750 (1) | — | — |"
    assert lines[4] == f"| judge calibration | {acc} | no judge | judge not calibrated |"


def test_the_acc_table_carries_each_rows_judge_calibration(tmp_path):
    """A judged ACC and its paired difference are never shown without the judge's
    calibration (the audit found the docs' ACC table without it)."""
    acc = "0.65 (n=20) judge uninformative"
    rows = [
        {**_row("mosaic", "answer_correctness", OVERALL, 2, 0.5, acc), "mean [95% CI]": "0.5 [..]"},
        {**_row("naive", "answer_correctness", OVERALL, 2, 0.6, acc), "mean [95% CI]": "0.6 [..]"},
    ]
    study = tmp_path / "toy-n2-s0"
    study.mkdir()
    pd.DataFrame(rows).to_csv(study / "graphragbench.csv", index=False)
    paired = {"method": "naive", "baseline": "mosaic", "diff [95% CI]": "+0.1 [..]"}
    paired |= {"context_tokens": 10.0, "context_tokens_baseline": 5.0}
    paired |= {"judge_calibration": "judge not calibrated"}
    pd.DataFrame([paired]).to_csv(study / "graphragbench_paired.csv", index=False)
    lines = FIGURES["grb_table"](tmp_path, ("toy-n2-s0",)).splitlines()
    assert lines[0].endswith("| context tokens | judge calibration |")
    assert lines[2] == f"| `mosaic` | 0.5 [..] | — | 5 | {acc} |"
    assert lines[3] == "| `naive` | 0.6 [..] | +0.1 [..] | 10 | judge not calibrated |"


def test_an_inline_score_carries_its_judges_calibration(tmp_path):
    judge = "0.55 (n=22) judge uninformative"
    rows = [
        _row("m", "evidence_recall", OVERALL, 20, 1.0, judge),
        _row("m", "rouge_score", OVERALL, 16, 0.25, None),
    ]
    study = tmp_path / "toy-n2-s0"
    study.mkdir()
    pd.DataFrame(rows).to_csv(study / "graphragbench.csv", index=False)
    score = FIGURES["grb_score"]
    assert score(tmp_path, ("toy-n2-s0", "m", "evidence_recall")) == f"1.000 (judge: {judge})"
    assert score(tmp_path, ("toy-n2-s0", "m", "rouge_score")) == "0.250"  # no judge
    with pytest.raises(DocsError, match="no overall"):
        score(tmp_path, ("toy-n2-s0", "other", "rouge_score"))
