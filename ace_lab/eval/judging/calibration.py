"""Judge calibration records: how well a judge separates known positives from known negatives.

A judged metric (Evidence Recall, ACC's statement classification, semantic equivalence, ...)
is only evidence when its judge can tell a right case from a wrong one. Each metric is
calibrated on items built automatically from the data (:mod:`ace_lab.eval.judging.calibration_sets`)
with the metric's own prompt and parsing (:mod:`ace_lab.eval.judging.calibration_run`): positives
whose verdict must be "yes" (a gold statement against its own evidence chunk, a gold answer
against a normalised copy of itself) and as many negatives whose verdict must be "no" (the same
statement against another question's context, another question's answer).

A :class:`Calibration` summarises one (metric, judge): ``tpr`` (share of positive probes said
yes), ``tnr`` (share of negative probes said no) and the balanced accuracy ``(tpr + tnr) / 2``;
a probe with several items (the facts coverage's judge lists, the statements of an answer)
counts once, with the share of its items said right, so ``n`` is the number of independent
probes; items with no usable verdict count as wrong and are reported on their own
(``unreadable``, and ``accuracy_readable`` without them). The metric
is **informative** when that accuracy is at least :data:`CALIBRATION_THRESHOLD` (0.75).
Why 0.75: a judge that says yes to everything (or no to everything, or flips a coin) scores
0.5 whatever the balance of the set, so 0.5 is "no information"; 0.75 is halfway from chance
to perfect, and on 16 positives + 16 negatives a coin-flipping judge reaches it with
probability < 0.4 % (24 of 32 right, binomial), so passing it is not luck; a judge below it
misclassifies at least one case in four, which is the size of the differences the tables
compare. A judge that never gave a verdict (every item a fallback) is uninformative too.

A judge is its full identity (:mod:`ace_lab.eval.judging.identity`: weights, server build and
the metric's prompt): a calibration backs only numbers judged by that exact identity, and a
number whose judge was never calibrated is marked :data:`NOT_CALIBRATED`, whatever the model's
name. Records live in :func:`judging_dir` (``<results_dir>/judging/calibration.json``, one entry
per (metric, judge identity), written from the per-item verdicts in
``<results_dir>/judging/verdicts.jsonl``), so a study kept in another results folder is read
with that folder's judges; :func:`load_calibrations` reads them, :func:`mark` and :func:`cell`
give the text a table puts beside a judged number of a given judge.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ace_lab.config import Settings, load_settings
from ace_lab.eval.judging.identity import JudgeIdentity

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
NAN = math.nan
#: The folder of a results folder that holds its judges' calibrations, and their file.
JUDGING_FOLDER = "judging"
CALIBRATION_NAME = "calibration.json"


def judging_dir(settings: Settings | None = None) -> Path:
    """``<results_dir>/judging``: where the configured results folder keeps its judges'
    calibration records."""
    return (settings or load_settings()).results_dir / JUDGING_FOLDER


@dataclass(frozen=True)
class Calibration:
    """One judge's calibration on one metric (module doc).

    ``n_pos`` / ``n_neg`` count independent probes (a probe holding positive and negative
    items counts once on each side), so ``n`` is the number of independent verdict sets, not of
    items; ``items`` is how many items they held and ``unreadable`` how many of those got no
    usable verdict (counted as wrong in ``accuracy``; ``accuracy_readable`` leaves them out).
    ``judge`` is the model name, ``judge_identity`` the model identity (weights and server
    build) and ``judge_prompt`` the prompt fingerprint (:mod:`ace_lab.eval.judging.identity`).
    """

    metric: str
    judge: str
    n_pos: int
    n_neg: int
    accuracy: float
    tpr: float
    tnr: float
    informative: bool
    judge_identity: str = ""
    judge_prompt: str = ""
    items: int = 0
    unreadable: int = 0
    accuracy_readable: float = math.nan

    @property
    def n(self) -> int:
        return self.n_pos + self.n_neg

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(self.judge_identity, self.judge_prompt)

    def label(self) -> str:
        """One short line for a table, e.g. ``judge acc 0.62 (n=32), uninformative``."""
        verdict = "informative" if self.informative else "uninformative"
        return f"judge acc {self.accuracy:.2f} (n={self.n}), {verdict}"


def _units(
    verdicts: Sequence[tuple[bool, bool | None]], probes: Sequence[object], readable: bool
) -> dict[bool, list[float]]:
    """Per side (expected yes / no): each probe's share of its items the judge got right, one
    value per probe (items without a verdict left out when ``readable``, else wrong)."""
    groups: dict[tuple[object, bool], list[bool]] = {}
    for (expected, said), probe in zip(verdicts, probes, strict=True):
        if readable and said is None:
            continue
        groups.setdefault((probe, bool(expected)), []).append(said is bool(expected))
    out: dict[bool, list[float]] = {True: [], False: []}
    for (_, side), right in groups.items():
        out[side].append(sum(right) / len(right))
    return out


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarize(
    metric: str,
    judge: str,
    verdicts: Sequence[tuple[bool, bool | None]],
    probes: Sequence[object] | None = None,
    identity: JudgeIdentity | None = None,
) -> Calibration:
    """The calibration of ``(expected, said)`` pairs. ``probes`` names each pair's probe (by
    default every pair is its own): a probe counts once per side, with the share of its items
    said right, so a probe with many items weighs no more than one with a single item. ``said``
    None (no usable verdict) counts as wrong on either side, so a judge that cannot answer is
    not rewarded; ``accuracy_readable`` is the same on the readable items only."""
    probes = list(range(len(verdicts))) if probes is None else list(probes)
    units = _units(verdicts, probes, readable=False)
    tpr, tnr = _mean(units[True]), _mean(units[False])
    accuracy = (tpr + tnr) / 2
    read = _units(verdicts, probes, readable=True)
    readable = (_mean(read[True]) + _mean(read[False])) / 2 if read[True] and read[False] else NAN
    informative = bool(units[True] and units[False]) and accuracy >= CALIBRATION_THRESHOLD
    identity = identity or JudgeIdentity("", "")
    return Calibration(
        metric,
        judge,
        len(units[True]),
        len(units[False]),
        accuracy,
        tpr,
        tnr,
        informative,
        judge_identity=identity.model,
        judge_prompt=identity.prompt,
        items=len(verdicts),
        unreadable=sum(said is None for _, said in verdicts),
        accuracy_readable=readable,
    )


def from_record(record: dict[str, Any]) -> Calibration:
    readable = record.get("accuracy_readable")
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
        judge_identity=str(record.get("judge_identity") or ""),
        judge_prompt=str(record.get("judge_prompt") or ""),
        items=int(record.get("items") or 0),
        unreadable=int(record.get("unreadable") or 0),
        accuracy_readable=NAN if readable is None else float(readable),
    )


@dataclass(frozen=True)
class Calibrations:
    """Every stored calibration, found by metric and the judge's full identity."""

    records: tuple[Calibration, ...] = ()

    def find(self, metric: str, identity: JudgeIdentity | None) -> Calibration | None:
        """The calibration of ``metric`` by exactly ``identity`` (model identity and prompt
        fingerprint both equal), or None: a judge that differs in either was not measured."""
        if identity is None or not identity.complete:
            return None
        found = [
            c for c in self.records if c.metric == metric and c.identity.key() == identity.key()
        ]
        return found[-1] if found else None

    def __len__(self) -> int:
        return len(self.records)


def load_calibrations(path: Path | None = None, settings: Settings | None = None) -> Calibrations:
    """The calibrations in ``path`` (default: :func:`judging_dir` of ``settings``); a missing
    file gives none. ``informative`` is recomputed from the accuracy, so the threshold here is
    the one used."""
    path = judging_dir(settings) / CALIBRATION_NAME if path is None else path
    if not path.exists():
        return Calibrations()
    records = json.loads(path.read_text(encoding="utf-8")).get("calibrations", [])
    return Calibrations(tuple(from_record(r) for r in records))


def mark(metric: str, calibrations: Calibrations, identity: JudgeIdentity | None) -> str:
    """The text beside a judged ``metric`` given by the judge ``identity``: "" when that exact
    judge is calibrated and informative, :data:`UNINFORMATIVE` below the threshold,
    :data:`NOT_CALIBRATED` when that judge (model, server build and prompt) was never
    calibrated on the metric."""
    found = calibrations.find(metric, identity)
    if found is None:
        return NOT_CALIBRATED
    return "" if found.informative else UNINFORMATIVE


def cell(metric: str, calibrations: Calibrations, identity: JudgeIdentity | None) -> str:
    """A table cell: the judge's calibration accuracy and n, with the mark where one applies
    (e.g. ``0.91 (n=32)``, ``0.50 (n=32) judge uninformative``, ``judge not calibrated``)."""
    found = calibrations.find(metric, identity)
    if found is None:
        return NOT_CALIBRATED
    flag = mark(metric, calibrations, identity)
    return f"{found.accuracy:.2f} (n={found.n})" + (f" {flag}" if flag else "")


def cells(metric: str, calibrations: Calibrations, identities: Counter[JudgeIdentity]) -> str:
    """The calibration cell of a number resting on verdicts of several judges
    (``identities``: how many verdicts each gave): the one judge's :func:`cell`, or each
    judge's cell with its share of the verdicts, e.g. ``0.97 (n=32) on 12 of 20 verdicts;
    judge not calibrated on 8 of 20 verdicts``."""
    if not identities:
        return NOT_CALIBRATED
    if len(identities) == 1:
        return cell(metric, calibrations, next(iter(identities)))
    total = sum(identities.values())
    by_cell: Counter[str] = Counter()
    for identity, count in identities.items():
        by_cell[cell(metric, calibrations, identity)] += count
    if len(by_cell) == 1:
        return next(iter(by_cell))
    return "; ".join(f"{text} on {count} of {total} verdicts" for text, count in by_cell.items())


def to_record(calibration: Calibration, **extra: Any) -> dict[str, Any]:
    """A JSON-ready record of ``calibration`` (plus ``extra`` keys such as the judge identity)."""
    return asdict(calibration) | extra
