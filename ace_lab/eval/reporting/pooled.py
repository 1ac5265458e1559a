"""Paired comparisons pooled over the slices (data sets) a method pair shares.

Each main table is read slice by slice although the same methods run on several slices;
:func:`pooled_tests` combines them, stratified by slice
(:func:`ace_lab.eval.statistics.pooled.stratified_paired`), and says how large a difference the
pooled sample and one slice can detect and how many questions a slice would need for
:data:`~ace_lab.eval.reporting.tables.TARGET_DIFF` (paired, alpha 0.05, power 0.8).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ace_lab.eval.reporting.tables import TARGET_DIFF, common_ids, per_question, select_methods
from ace_lab.eval.statistics.exact import holm
from ace_lab.eval.statistics.pooled import stratified_paired
from ace_lab.eval.statistics.power import min_detectable_difference, pairs_needed
from ace_lab.eval.statistics.resampling import N_RESAMPLES

#: The columns the notebooks show of :func:`pooled_tests`.
POOLED_VIEW = [
    "method",
    "baseline",
    "slices",
    "n",
    "diff [95% CI]",
    "p_permutation",
    "p_holm",
    "mde",
    "mde_slice",
    "n_for_+0.05",
]


def _pairs(
    frames: Mapping[str, pd.DataFrame], method: str, baseline: str, metric: str
) -> dict[str, tuple[Any, Any]]:
    """Slice label → (method's, baseline's) scores on the questions both answered there."""
    out = {}
    for label, df in frames.items():
        present = set(df["method"]) if "method" in df else set()
        if method not in present or baseline not in present:
            continue
        a, b = per_question(df, method, metric), per_question(df, baseline, metric)
        if ids := common_ids([a, b]):
            out[label] = (a.loc[ids].to_numpy(), b.loc[ids].to_numpy())
    return out


def pooled_tests(
    frames: Mapping[str, pd.DataFrame],
    baseline: str,
    methods: Sequence[str] | None = None,
    *,
    metric: str = "f1",
    n_resamples: int = N_RESAMPLES,
    n_permutations: int = 100_000,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per method (``methods`` present in any of ``frames``, keyed by slice label) and
    ``baseline``, pooled over the slices both ran on: ``slices`` (their labels), ``n`` (shared
    questions in all), the pooled mean difference with its stratified-bootstrap interval,
    ``p_permutation`` (sign-flip over the union: exact up to 24 non-zero differences, else
    ``n_permutations`` Monte Carlo patterns), ``p_holm`` (Holm over the table's rows),
    ``sd_diff`` (pooled within-slice SD of the differences), ``mde`` (smallest true difference
    detectable at the pooled n), ``mde_slice`` (the same at the mean slice size ``n_slice``) and
    ``n_for_+0.05`` (questions a slice needs to detect :data:`TARGET_DIFF`). A method sharing no
    slice with the baseline has no row; empty without any."""
    wanted: list[str] = []
    for df in frames.values():
        if "method" in df and len(df):
            wanted += [m for m in select_methods(df, None) if m not in wanted]
    if methods is not None:
        wanted = [m for m in methods if m in wanted]
    rows = []
    for method in [m for m in wanted if m != baseline]:
        pairs = _pairs(frames, method, baseline, metric)
        if not pairs:
            continue
        pooled = stratified_paired(
            list(pairs.values()),
            n_resamples=n_resamples,
            n_permutations=n_permutations,
            seed=seed,
        )
        n_slice = pooled.n / pooled.slices
        rows.append(
            {
                "method": method,
                "baseline": baseline,
                "slices": ", ".join(pairs),
                "n": pooled.n,
                "n_slice": n_slice,
                "diff": pooled.mean_diff,
                "diff_low": pooled.low,
                "diff_high": pooled.high,
                "diff [95% CI]": (
                    f"{pooled.mean_diff:+.3f} [{pooled.low:+.3f}, {pooled.high:+.3f}]"
                ),
                "p_permutation": pooled.p_value,
                "p_holm": math.nan,
                "sd_diff": pooled.sd,
                "mde": min_detectable_difference(pooled.sd, pooled.n),
                "mde_slice": min_detectable_difference(pooled.sd, round(n_slice)),
                "n_for_+0.05": pairs_needed(pooled.sd, TARGET_DIFF),
            }
        )
    table = pd.DataFrame(rows)
    if not table.empty:
        table["p_holm"] = holm(table["p_permutation"].tolist())
    return table


def power_summary(pooled: pd.DataFrame) -> str:
    """One line under a main table: the range of ``mde_slice`` and ``n_for_+0.05`` over the
    rows of :func:`pooled_tests` (empty for an empty table)."""
    if pooled.empty or pooled["sd_diff"].isna().all():
        return ""
    mde, need = pooled["mde_slice"].dropna(), pooled["n_for_+0.05"].dropna()
    return (
        f"At ~{pooled['n_slice'].mean():.0f} questions per slice a paired F1 difference is "
        f"detectable (alpha 0.05, power 0.8) from {mde.min():.3f} to {mde.max():.3f}; "
        f"detecting +{TARGET_DIFF:.2f} needs {need.min():.0f}–{need.max():.0f} questions "
        "per slice."
    )
