"""How large a difference each metric can detect at the committed n: answer F1 against the
evidence metrics, on the same methods, slices and questions.

For each slice, each method of a study is paired with a reference method on the questions both
have; per metric the table gives the median (over methods) standard deviation of the paired
differences, the median detectable difference at the slice's n (paired t, α 0.05, power 0.8)
and the median number of questions a difference of 0.05 would need. F1 comes from the answered
study, answer coverage and passage recall from the evidence-only study at the same budget, so
the rows say how much cheaper (in questions) a context metric reaches a verdict than the reader's
F1. ``python -m ace_lab.eval.reporting.budget_report`` writes ``results/power_by_metric.*``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ace_lab.eval.reporting.evidence import metric_values
from ace_lab.eval.statistics.power import TARGET_DIFF, min_detectable_difference, pairs_needed

#: (metric, which study it is read from): F1 needs the reader, the other two do not.
METRICS: tuple[tuple[str, str], ...] = (
    ("f1", "answered"),
    ("answer_coverage", "evidence"),
    ("passage_recall", "evidence"),
)


def _paired_sd(frame: pd.DataFrame, method: str, reference: str, metric: str) -> tuple[float, int]:
    def values(name: str) -> pd.Series:
        rows = frame[frame["method"] == name].drop_duplicates("id", keep="last")
        return metric_values(rows, metric) if len(rows) else pd.Series(dtype=float)

    a, b = values(method), values(reference)
    shared = [i for i in a.index if i in b.index]
    if len(shared) < 2:
        return math.nan, len(shared)
    d = a.loc[shared].to_numpy(float) - b.loc[shared].to_numpy(float)
    return float(np.std(d, ddof=1)), len(shared)


def power_by_metric(
    studies: Mapping[str, Mapping[str, pd.DataFrame]],
    pairs: Sequence[tuple[str, str, str]],
) -> pd.DataFrame:
    """``studies``: slice label → {"answered": records, "evidence": records}; ``pairs``: (label,
    answered method, evidence method) of each method compared with the first pair's reference.
    One row per slice and metric: n, median paired SD, median detectable difference, median
    questions for 0.05 (methods whose differences never vary are left out of the medians)."""
    (_, ref_answered, ref_evidence), *others = pairs
    rows = []
    for label, frames in studies.items():
        for metric, source in METRICS:
            frame = frames.get(source)
            if frame is None or frame.empty:
                continue
            reference = ref_answered if source == "answered" else ref_evidence
            stats = []
            for _, answered, evidence in others:
                method = answered if source == "answered" else evidence
                sd, n = _paired_sd(frame, method, reference, metric)
                if n >= 2 and sd > 0:
                    stats.append((sd, n, min_detectable_difference(sd, n), pairs_needed(sd)))
            if stats:
                sds, ns, mdes, needed = zip(*stats, strict=True)
                rows.append(
                    {
                        "slice": label,
                        "metric": metric,
                        "needs a reader": source == "answered",
                        "methods": len(stats),
                        "n": int(np.median(ns)),
                        "paired sd": float(np.median(sds)),
                        "detectable difference": float(np.median(mdes)),
                        f"n for {TARGET_DIFF}": int(np.median(needed)),
                    }
                )
    return pd.DataFrame(rows)
