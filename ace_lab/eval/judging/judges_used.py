"""Which judges the committed records use, and whether each was calibrated.

Every judged verdict under a results folder names its judge (:mod:`ace_lab.eval.judging.identity`):
semantic equivalence in ``<study>/semantic/verdicts.jsonl`` (only the verdicts the judge gave:
the exact, empty and yes/no fast paths need none), GraphRAG-Bench metrics in
``<study>/graphragbench/scores.jsonl`` (one line per answer, each metric it holds) and pairwise
preference in ``<study>/judge/*.jsonl``. :func:`judges_used` counts the verdicts per (metric,
judge identity); :func:`calibration_rows` sets each beside the calibration of exactly that judge,
so the page that lists calibrations also lists the judges behind committed numbers that never
were (``ace-lab calibrate --missing``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ace_lab.eval.graphragbench.cells import CALIBRATED_AS
from ace_lab.eval.judging.calibration import NOT_CALIBRATED, UNINFORMATIVE, Calibrations
from ace_lab.eval.judging.identity import JudgeIdentity, of_record

#: Semantic verdicts a judge gave (the others were decided by a fast path).
JUDGED_BY = ("judge", "fallback")


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    for text in path.read_text(encoding="utf-8").splitlines():
        if text.strip():
            yield json.loads(text)


def judges_used(results_dir: Path) -> Counter[tuple[str, JudgeIdentity]]:
    """How many committed verdicts each (calibrated metric, judge identity) gave under
    ``results_dir`` (module doc)."""
    found: Counter[tuple[str, JudgeIdentity]] = Counter()
    for path in sorted(Path(results_dir).glob("*/semantic/verdicts.jsonl")):
        for line in _lines(path):
            if line.get("by") in JUDGED_BY:
                metric = "semantic_equivalence"
                found[(metric, of_record(line, metric))] += 1
    for path in sorted(Path(results_dir).glob("*/graphragbench/scores.jsonl")):
        for line in _lines(path):
            for held in line.get("holds") or ():
                if held in CALIBRATED_AS:
                    metric = CALIBRATED_AS[held]
                    found[(metric, of_record(line, metric))] += 1
    for path in sorted(Path(results_dir).glob("*/judge/*.jsonl")):
        for line in _lines(path):
            metric = "pairwise_preference"
            found[(metric, of_record(line, metric))] += 1
    return found


def calibration_rows(
    used: Counter[tuple[str, JudgeIdentity]], calibrations: Calibrations
) -> list[dict[str, Any]]:
    """One row per (metric, judge identity) that committed verdicts use or a calibration
    measured: the verdicts it gave, and its calibration (balanced accuracy and n, marked) or
    :data:`NOT_CALIBRATED`; sorted by metric, then judge."""
    keys = set(used) | {(c.metric, c.identity) for c in calibrations.records}
    rows = []
    for metric, identity in sorted(keys, key=lambda k: (k[0], k[1].key())):
        found = calibrations.find(metric, identity)
        if found is None:
            calibration, mark = "", NOT_CALIBRATED
        else:
            calibration = f"{found.accuracy:.3f} (n={found.n})"
            mark = "informative" if found.informative else UNINFORMATIVE
        rows.append(
            {
                "metric": metric,
                "judge": identity,
                "verdicts": used.get((metric, identity), 0),
                "calibration": calibration,
                "mark": mark,
            }
        )
    return rows


def missing(
    used: Counter[tuple[str, JudgeIdentity]], calibrations: Calibrations
) -> list[tuple[str, JudgeIdentity, int]]:
    """(metric, judge identity, verdicts) of every judge committed verdicts use that was never
    calibrated on that metric."""
    return [
        (metric, identity, count)
        for (metric, identity), count in sorted(used.items(), key=lambda kv: kv[0][1].key())
        if calibrations.find(metric, identity) is None
    ]
