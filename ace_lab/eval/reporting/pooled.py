"""Paired comparisons pooled over the slices (data sets) a method pair shares.

Each main table is read slice by slice although the same methods run on several slices;
:func:`pooled_tests` combines them, stratified by slice
(:func:`ace_lab.eval.statistics.pooled.stratified_paired`), and says how large a difference the
pooled sample and each slice can detect and how many questions a slice would need for
:data:`~ace_lab.eval.statistics.power.TARGET_DIFF` (paired t, alpha 0.05, power 0.8).

A slice's detectable difference uses that slice's own n (a mean slice size would flatter the
smallest slice: MuSiQue's 10 questions beside two slices of 20) and the pooled within-slice SD
of the differences: a slice's own SD at 5–10 questions is too noisy to plan with, and is 0
where every difference is 0, which would claim any difference detectable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ace_lab.eval.reporting.tables import common_ids, per_question, select_methods
from ace_lab.eval.statistics.exact import holm
from ace_lab.eval.statistics.pooled import stratified_paired
from ace_lab.eval.statistics.power import TARGET_DIFF, min_detectable_difference, pairs_needed
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
    "mde_per_slice",
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
    the paired t test detects at the pooled n), ``n_per_slice`` and ``mde_per_slice`` (each
    slice's shared questions and its detectable difference at that n, in ``slices`` order),
    ``n_slice`` and ``mde_slice`` (the smallest slice's n and its detectable difference, the
    largest of them) and ``n_for_+0.05`` (questions a slice needs to detect
    :data:`~ace_lab.eval.statistics.power.TARGET_DIFF`). A method sharing no slice with the
    baseline has no row; empty without any."""
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
        mde_per_slice = [min_detectable_difference(pooled.sd, n) for n in pooled.sizes]
        rows.append(
            {
                "method": method,
                "baseline": baseline,
                "slices": ", ".join(pairs),
                "n": pooled.n,
                "n_per_slice": ", ".join(str(n) for n in pooled.sizes),
                "n_slice": min(pooled.sizes),
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
                "mde_per_slice": ", ".join(_number(mde) for mde in mde_per_slice),
                "mde_slice": max(mde_per_slice, key=_nan_last),
                "n_for_+0.05": pairs_needed(pooled.sd, TARGET_DIFF),
            }
        )
    table = pd.DataFrame(rows)
    if not table.empty:
        table["p_holm"] = holm(table["p_permutation"].tolist())
    return table


def _number(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.3f}"


def _nan_last(value: float) -> float:
    """Sort key that ranks NaN (no SD at that slice) below every number."""
    return -math.inf if math.isnan(value) else value


def power_summary(pooled: pd.DataFrame, metric: str = "F1") -> str:
    """One line under a pooled table: the range over the rows of :func:`pooled_tests` of the
    detectable difference at each pair's smallest slice (``mde_slice`` at ``n_slice``) and of
    ``n_for_+0.05`` (empty for an empty table)."""
    if pooled.empty or pooled["sd_diff"].isna().all():
        return ""
    mde, need = pooled["mde_slice"].dropna(), pooled["n_for_+0.05"].dropna()
    sizes = pooled["n_slice"]
    return (
        f"At the smallest slice a pair shares ({sizes.min():.0f}–{sizes.max():.0f} questions) "
        f"a paired {metric} difference is detectable (paired t, alpha 0.05, power 0.8) from "
        f"{mde.min():.3f} to {mde.max():.3f}; detecting +{TARGET_DIFF:.2f} needs "
        f"{need.min():.0f}–{need.max():.0f} questions per slice."
    )
