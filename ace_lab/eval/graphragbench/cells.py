"""What a GraphRAG-Bench table says where a number is, where none is, and how far its judge is
to be trusted.

A method's scores (:func:`~ace_lab.eval.graphragbench.summarize`) have rows only where a valid
score exists. :func:`complete` adds a row for every metric the benchmark gives a question type
the method answered (and for its overall) that has none, its ``mean [95% CI]`` saying why:
``missing: not scored yet (<command>)`` when no stored line holds the metric, ``missing: no valid
verdict`` when lines hold it but every judge call fell back. A missing metric is never a 0.

Each judged metric's rows carry ``judge_calibration``: the judge's calibration accuracy on that
metric with the mark :mod:`ace_lab.eval.judging.calibration` gives (``judge uninformative``
below its threshold, ``judge not calibrated`` without a record), so a number is never read
without its judge's record. ROUGE-L needs no judge and has none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import pandas as pd

from ace_lab.eval.graphragbench.scoring import IMPLEMENTED, JUDGED, OVERALL, metrics_for
from ace_lab.eval.judging.calibration import Calibrations, cells
from ace_lab.eval.judging.identity import JudgeIdentity, of_record

#: The calibration metric (:data:`ace_lab.eval.judging.calibration.METRICS`) of each judged
#: GraphRAG-Bench metric: ACC's judge is calibrated on its statement classification.
CALIBRATED_AS: dict[str, str] = {
    "answer_correctness": "acc_statements",
    "coverage_score": "coverage",
    "faithfulness": "faithfulness",
    "evidence_recall": "evidence_recall",
    "context_relevancy": "context_relevancy",
}
#: The text that starts a missing cell.
MISSING = "missing"


def score_identities(lines: pd.DataFrame, metric: str) -> Counter[JudgeIdentity]:
    """How many of the stored score ``lines`` holding ``metric`` each judge identity (model
    identity and the prompt fingerprint the line records for the metric) judged."""
    found: Counter[JudgeIdentity] = Counter()
    if metric not in CALIBRATED_AS or lines.empty:
        return found
    for line in lines.to_dict("records"):
        holds = line.get("holds")
        if isinstance(holds, list) and metric not in holds:
            continue
        value = line.get(metric)
        if value is None or value != value:  # no score of this metric on the line
            continue
        found[of_record(line, CALIBRATED_AS[metric])] += 1
    return found


def calibration_cell(
    metric: str, calibrations: Calibrations, identities: Counter[JudgeIdentity]
) -> str:
    """The judge-calibration text beside ``metric`` scored by ``identities`` (how many scores
    each judge gave; :func:`score_identities`): "" for ROUGE-L, which has no judge."""
    if metric not in JUDGED:
        return ""
    return cells(CALIBRATED_AS[metric], calibrations, identities)


def held_metrics(lines: pd.DataFrame, kind: str) -> set[str]:
    """The metrics that stored ``lines`` of questions of type ``kind`` hold."""
    held: set[str] = set()
    for holds, row_kind in zip(lines["holds"], lines["type"], strict=True):
        if row_kind != kind:
            continue
        held |= set(holds) if isinstance(holds, list) else set(metrics_for(row_kind))
    return held


def missing_text(metric: str, scored: bool) -> str:
    """Why a metric has no number: judged without a valid verdict, or never judged."""
    if scored:
        return f"{MISSING}: no valid verdict (every judge call fell back)"
    return f"{MISSING}: not scored yet (ace-lab grb-score --metrics {metric})"


def _missing_row(metric: str, kind: str, why: str) -> dict[str, Any]:
    return {
        "metric": metric,
        "type": kind,
        "n": 0,
        "mean": float("nan"),
        "low": float("nan"),
        "high": float("nan"),
        "judge_model": None,
        "embed_model": None,
        "mean [95% CI]": why,
    }


def complete(table: pd.DataFrame, lines: pd.DataFrame, kinds: Iterable[str]) -> pd.DataFrame:
    """``table`` (one method's :func:`summarize` rows, with ``mean [95% CI]``) with a missing
    row for each metric the benchmark gives the question types ``kinds`` that has no score, in
    table order (metric, then type, then the overall); ``lines`` are the method's stored scores."""
    order = list(dict.fromkeys(kinds))
    present = {(r["metric"], r["type"]): r for r in table.to_dict("records")}
    rows: list[dict[str, Any]] = []
    for metric in IMPLEMENTED:
        expected = [k for k in order if metric in metrics_for(k)]
        scored_any = False
        for kind in expected:
            scored = metric in held_metrics(lines, kind)
            scored_any |= scored
            rows.append(
                present.get((metric, kind))
                or _missing_row(metric, kind, missing_text(metric, scored))
            )
        if expected:
            why = missing_text(metric, scored_any)
            rows.append(present.get((metric, OVERALL)) or _missing_row(metric, OVERALL, why))
    return pd.DataFrame(rows, columns=list(table.columns))
