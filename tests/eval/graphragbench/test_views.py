"""ace_lab.eval.graphragbench.views and .cells: every metric of a type side by side, the
embedder named beside ACC, each judged column with its judge's calibration (a judge that says
yes to everything is marked uninformative), missing metrics saying why, and ACC pooled over
the slices against a reference."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from ace_lab.eval.graphragbench.cells import (
    MISSING,
    calibration_cell,
    complete,
    score_identities,
)
from ace_lab.eval.graphragbench.scoring import OVERALL, summarize
from ace_lab.eval.graphragbench.views import grb_pooled, pooled_summary, type_view, type_views
from ace_lab.eval.judging.calibration import UNINFORMATIVE, Calibration, Calibrations
from ace_lab.eval.judging.calibration import summarize as calibrate
from ace_lab.eval.judging.identity import JudgeIdentity

FR, CS = "Fact Retrieval", "Contextual Summarize"


JUDGE = "local:qwen1.5b:gguf:abc+llama-server:111"
PROMPTS = {"acc_statements": "pa", "evidence_recall": "pe", "context_relevancy": "pc"}
MODELS = {"judge_model": "qwen1.5b", "embed_model": "st:all-MiniLM-L6-v2"}
MODELS |= {"judge_identity": JUDGE, "judge_prompts": PROMPTS}


def _lines() -> pd.DataFrame:
    fact = {"id": "q1", "type": FR, "answer_correctness": 0.8, "rouge_score": 0.5}
    fact |= {
        "evidence_recall": 1.0,
        "holds": ["answer_correctness", "rouge_score", "evidence_recall"],
    }
    summary = {"id": "q2", "type": CS, "answer_correctness": 0.6, "evidence_recall": 1.0}
    summary |= {"context_relevancy": float("nan")}
    summary["holds"] = ["answer_correctness", "evidence_recall", "context_relevancy"]
    return pd.DataFrame([fact | MODELS, summary | MODELS])


def _table(calibrations: Calibrations, lines: pd.DataFrame | None = None) -> pd.DataFrame:
    lines = _lines() if lines is None else lines
    table = summarize(lines)
    table["mean [95% CI]"] = [f"{m:.3f}" for m in table["mean"]]
    table = complete(table, lines, [FR, CS])
    table.insert(0, "method", "naive")
    table["judge_calibration"] = [
        calibration_cell(m, calibrations, score_identities(lines, m)) for m in table["metric"]
    ]
    return table


def _calibrations() -> Calibrations:
    def of(metric: str, verdicts: list) -> Calibration:
        identity = JudgeIdentity(JUDGE, PROMPTS[metric])
        return calibrate(metric, "qwen1.5b", verdicts, identity=identity)

    yes = of("evidence_recall", [(True, True)] * 16 + [(False, True)] * 16)
    good = of("acc_statements", [(True, True)] * 16 + [(False, False)] * 16)
    return Calibrations((yes, good))


def test_a_calibration_backs_only_the_scores_of_its_exact_judge():
    """Scores from another llama-server build, or judged with another prompt, are not backed
    by the calibration of the same model name."""
    for change in ({"judge_identity": JUDGE.replace(":111", ":222")}, {"judge_prompts": {}}):
        table = _table(_calibrations(), _lines().assign(**{k: [v] * 2 for k, v in change.items()}))
        judged = table[table["metric"] == "answer_correctness"]["judge_calibration"]
        assert set(judged) == {"judge not calibrated"}, change
    assert score_identities(_lines(), "rouge_score") == Counter()
    assert score_identities(_lines(), "evidence_recall") == Counter({JudgeIdentity(JUDGE, "pe"): 2})


def test_a_judge_that_says_yes_to_everything_is_marked_uninformative():
    table = _table(_calibrations())
    view = type_view(table, FR)
    columns = list(view.columns)
    assert columns[1] == "ACC (sim: all-MiniLM-L6-v2) [1.00 (n=32)]"
    assert columns[2] == "ROUGE-L"  # no judge, no calibration
    (recall,) = [c for c in columns if c.startswith("Evidence Recall")]
    assert UNINFORMATIVE in recall and "0.50 (n=32)" in recall
    (relevancy,) = [c for c in columns if c.startswith("Context Relevancy")]
    assert "judge not calibrated" in relevancy
    assert view.loc[0, columns[1]] == "0.800 n=1"


def test_a_metric_not_computed_is_missing_with_why_never_zero():
    table = _table(Calibrations())
    rows = table.set_index(["metric", "type"])
    # Coverage was never judged: missing on the summary and the overall, with the command
    coverage = rows.loc[("coverage_score", CS)]
    assert (
        coverage["mean [95% CI]"]
        == f"{MISSING}: not scored yet (ace-lab grb-score --metrics coverage_score)"
    )
    assert np.isnan(coverage["mean"]) and coverage["n"] == 0
    assert rows.loc[("coverage_score", OVERALL), "mean [95% CI]"].startswith(MISSING)
    # Context Relevancy was judged on the summary but no rating was valid
    relevancy = rows.loc[("context_relevancy", CS), "mean [95% CI]"]
    assert relevancy.startswith(f"{MISSING}: no valid verdict")
    assert rows.loc[("context_relevancy", FR), "mean [95% CI]"].startswith(f"{MISSING}: not scored")
    # no Coverage row for Fact Retrieval: the benchmark does not give that type Coverage
    assert ("coverage_score", FR) not in rows.index and ("rouge_score", CS) not in rows.index
    views = type_views(table)
    assert list(views) == [FR, CS, OVERALL]
    assert list(views[CS].columns)[1:3] == [
        "ACC (sim: all-MiniLM-L6-v2) [judge not calibrated]",
        "Coverage [judge not calibrated]",
    ]
    assert views[CS].iloc[0, 2].startswith("missing: not scored yet")


def test_acc_is_pooled_over_the_slices_both_methods_ran():
    def frame(prefix, diffs):
        rows = []
        for i, d in enumerate(diffs):
            qid = f"{prefix}{i}"
            rows.append({"method": "mosaic", "id": qid, "answer_correctness": 0.5})
            rows.append({"method": "naive", "id": qid, "answer_correctness": 0.5 + d})
        return pd.DataFrame(rows)

    joined = {"Medical": frame("m", [0.1, 0.2, 0.1, 0.3]), "Novel": frame("n", [0.2, 0.1, 0.2])}
    joined["Novel"].loc[0, "answer_correctness"] = float("nan")  # an unscored answer: dropped
    pooled = grb_pooled(joined, "mosaic", ["naive"])
    (row,) = pooled.to_dict("records")
    assert (
        row["slices"] == "Medical, Novel"
        and row["n"] == 6
        and row["metric"] == "answer_correctness"
    )
    assert row["diff"] == pytest.approx(np.mean([0.1, 0.2, 0.1, 0.3, 0.1, 0.2]))
    assert row["p_permutation"] == pytest.approx(2 / 2**6)  # exact: every difference positive
    assert row["p_holm"] == row["p_permutation"]
    assert "paired ACC difference" in pooled_summary(pooled)
    assert grb_pooled(joined, "hirag", ["naive"]).empty
