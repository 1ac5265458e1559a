"""Judge calibration records: how well a judge separates known positives from known negatives.

A judged metric (Evidence Recall, ACC's statement classification, semantic equivalence, ...)
is only evidence when its judge can tell a right case from a wrong one. Each metric is
calibrated on items built automatically from the data (:mod:`ace_lab.eval.judging.calibration_sets`)
with the metric's own prompt and parsing (:mod:`ace_lab.eval.judging.calibration_run`): positives
whose verdict must be "yes" (a gold statement against its own evidence chunk, a gold answer
against a normalised copy of itself) and as many negatives whose verdict must be "no" (the same
statement against another question's context, another question's answer).

A :class:`Calibration` summarises one (metric, judge): ``tpr`` (share of positives said yes),
``tnr`` (share of negatives said no) and the balanced accuracy ``(tpr + tnr) / 2``. The metric
is **informative** when that accuracy is at least :data:`CALIBRATION_THRESHOLD` (0.75).
Why 0.75: a judge that says yes to everything (or no to everything, or flips a coin) scores
0.5 whatever the balance of the set, so 0.5 is "no information"; 0.75 is halfway from chance
to perfect, and on 16 positives + 16 negatives a coin-flipping judge reaches it with
probability < 0.4 % (24 of 32 right, binomial), so passing it is not luck; a judge below it
misclassifies at least one case in four, which is the size of the differences the tables
compare. A judge that never gave a verdict (every item a fallback) is uninformative too.

Records live in :func:`judging_dir` (``<results_dir>/judging/calibration.json``, one entry per
(metric, judge), written from the per-item verdicts in ``<results_dir>/judging/verdicts.jsonl``),
so a study kept in another results folder is read with that folder's judges;
:func:`load_calibrations` reads them keyed by metric, :func:`mark` gives the text a table puts
beside a judged number.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ace_lab.config import Settings, load_settings

#: The judged metrics, named as every table and record names them.
METRICS: tuple[str, ...] = (
    "evidence_recall",
    "context_relevancy",
    "coverage",
    "faithfulness",
    "acc_statements",
    "semantic_equivalence",
    "pairwise_preference",
)
#: Balanced accuracy at or above which a judge is informative for a metric (module doc).
CALIBRATION_THRESHOLD: float = 0.75
#: The mark beside a judged number whose judge is below the threshold.
UNINFORMATIVE = "judge uninformative"
#: The mark beside a judged number whose judge has no calibration for that metric: an
#: uncalibrated judge is not evidence either, but the reader should know it was never measured.
NOT_CALIBRATED = "judge not calibrated"
#: The folder of a results folder that holds its judges' calibrations, and their file.
JUDGING_FOLDER = "judging"
CALIBRATION_NAME = "calibration.json"


def judging_dir(settings: Settings | None = None) -> Path:
    """``<results_dir>/judging``: where the configured results folder keeps its judges'
    calibration records."""
    return (settings or load_settings()).results_dir / JUDGING_FOLDER


@dataclass(frozen=True)
class Calibration:
    """One judge's calibration on one metric (module doc)."""

    metric: str
    judge: str
    n_pos: int
    n_neg: int
    accuracy: float
    tpr: float
    tnr: float
    informative: bool

    @property
    def n(self) -> int:
        return self.n_pos + self.n_neg

    def label(self) -> str:
        """One short line for a table, e.g. ``judge acc 0.62 (n=32), uninformative``."""
        verdict = "informative" if self.informative else "uninformative"
        return f"judge acc {self.accuracy:.2f} (n={self.n}), {verdict}"


def summarize(metric: str, judge: str, verdicts: list[tuple[bool, bool | None]]) -> Calibration:
    """The calibration of ``(expected, said)`` pairs: ``said`` None (no usable verdict) counts
    as wrong on either side, so a judge that cannot answer is not rewarded."""
    pos = [said for expected, said in verdicts if expected]
    neg = [said for expected, said in verdicts if not expected]
    tpr = sum(s is True for s in pos) / len(pos) if pos else 0.0
    tnr = sum(s is False for s in neg) / len(neg) if neg else 0.0
    accuracy = (tpr + tnr) / 2
    informative = bool(pos and neg) and accuracy >= CALIBRATION_THRESHOLD
    return Calibration(metric, judge, len(pos), len(neg), accuracy, tpr, tnr, informative)


def from_record(record: dict[str, Any]) -> Calibration:
    return Calibration(
        metric=str(record["metric"]),
        judge=str(record["judge"]),
        n_pos=int(record["n_pos"]),
        n_neg=int(record["n_neg"]),
        accuracy=float(record["accuracy"]),
        tpr=float(record["tpr"]),
        tnr=float(record["tnr"]),
        informative=float(record["accuracy"]) >= CALIBRATION_THRESHOLD
        and int(record["n_pos"]) > 0
        and int(record["n_neg"]) > 0,
    )


def load_calibrations(
    path: Path | None = None, judge: str | None = None, settings: Settings | None = None
) -> dict[str, Calibration]:
    """The calibrations in ``path`` (default: :func:`judging_dir` of ``settings``) by metric.

    With ``judge`` (a model name such as ``qwen1.5b``, as records' ``judge_model`` name it)
    only that judge's calibrations; without, the last entry per metric in the file (the file
    is sorted by judge, so a file with one judge gives that judge's). A missing file gives {}.
    ``informative`` is recomputed from the accuracy, so the threshold here is the one used.
    """
    path = judging_dir(settings) / CALIBRATION_NAME if path is None else path
    if not path.exists():
        return {}
    records = json.loads(path.read_text(encoding="utf-8")).get("calibrations", [])
    out: dict[str, Calibration] = {}
    for record in records:
        if judge is None or record.get("judge") == judge:
            out[str(record["metric"])] = from_record(record)
    return out


def mark(metric: str, calibrations: dict[str, Calibration], judge: str | None = None) -> str:
    """The text beside a judged ``metric``: "" when its judge is calibrated and informative,
    :data:`UNINFORMATIVE` below the threshold, :data:`NOT_CALIBRATED` without a calibration
    (or, with ``judge``, when the calibration is of another judge)."""
    found = calibrations.get(metric)
    if found is None or (judge is not None and found.judge != judge):
        return NOT_CALIBRATED
    return "" if found.informative else UNINFORMATIVE


def cell(metric: str, calibrations: dict[str, Calibration], judge: str | None = None) -> str:
    """A table cell: the judge's calibration accuracy and n, with the mark where one applies
    (e.g. ``0.91 (n=32)``, ``0.50 (n=32) judge uninformative``, ``judge not calibrated``)."""
    found = calibrations.get(metric)
    flag = mark(metric, calibrations, judge)
    if flag == NOT_CALIBRATED or found is None:
        return NOT_CALIBRATED
    return f"{found.accuracy:.2f} (n={found.n})" + (f" {flag}" if flag else "")


def to_record(calibration: Calibration, **extra: Any) -> dict[str, Any]:
    """A JSON-ready record of ``calibration`` (plus ``extra`` keys such as the judge identity)."""
    return asdict(calibration) | extra
