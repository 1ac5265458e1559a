"""One paired comparison pooled over several slices (data sets), stratified by slice.

Each slice contributes its per-question differences a − b. The pooled difference is their mean
over every shared question (each slice weighs by its size); its interval is a stratified
bootstrap (questions resampled within their slice, so every replicate keeps the slice mix); its
p-value is the sign-flip test over the union (sign patterns are per question, so the test is
stratified by construction): exact up to 24 non-zero differences, else Monte Carlo. The spread
of the differences is the pooled within-slice standard deviation (each slice about its own
mean), from which :mod:`ace_lab.eval.statistics.power` gives the minimal detectable difference
at the pooled n and at each slice's own n (``sizes``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ace_lab.eval.statistics.exact import sign_flip_p
from ace_lab.eval.statistics.resampling import N_RESAMPLES

#: Bootstrap rows drawn at once.
_BLOCK = 1000


@dataclass(frozen=True)
class PooledPaired:
    """A paired difference pooled over ``slices`` slices of ``n`` questions in all."""

    mean_diff: float
    low: float
    high: float
    p_value: float
    n: int
    slices: int
    sd: float  # pooled within-slice standard deviation of the paired differences
    sizes: tuple[int, ...] = ()  # questions per slice, in the order the pairs were given

    def __str__(self) -> str:
        return f"{self.mean_diff:+.3f} [{self.low:+.3f}, {self.high:+.3f}] p={self.p_value:.3g}"


def pooled_sd(strata: Sequence[np.ndarray]) -> float:
    """Pooled within-stratum standard deviation (each stratum about its own mean, n − 1 each);
    NaN when no stratum has two values."""
    dof = sum(s.size - 1 for s in strata if s.size > 1)
    if dof <= 0:
        return math.nan
    squares = sum(float(((s - s.mean()) ** 2).sum()) for s in strata if s.size > 1)
    return math.sqrt(squares / dof)


def _stratified_means(strata: Sequence[np.ndarray], n_resamples: int, seed: int) -> np.ndarray:
    """Union means of ``n_resamples`` stratified resamples (with replacement within strata)."""
    rng = np.random.default_rng(seed)
    total = sum(s.size for s in strata)
    out = np.zeros(n_resamples)
    for start in range(0, n_resamples, _BLOCK):
        rows = min(_BLOCK, n_resamples - start)
        for values in strata:
            picks = rng.integers(0, values.size, (rows, values.size))
            out[start : start + rows] += values[picks].sum(axis=1)
    return out / total


def stratified_paired(
    pairs: Sequence[tuple[ArrayLike, ArrayLike]],
    *,
    n_resamples: int = N_RESAMPLES,
    n_permutations: int = 100_000,
    alpha: float = 0.05,
    seed: int = 0,
) -> PooledPaired:
    """Pooled paired comparison of ``pairs`` (per slice, the two systems' scores on the same
    questions in the same order); empty slices are skipped. NaNs without any question."""
    strata = []
    for a, b in pairs:
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if x.shape != y.shape or x.ndim != 1:
            raise ValueError(f"paired samples differ in shape: {x.shape} vs {y.shape}")
        if x.size:
            strata.append(x - y)
    if not strata:
        return PooledPaired(*(math.nan,) * 4, 0, 0, math.nan)  # type: ignore[arg-type]
    union = np.concatenate(strata)
    mean = float(union.mean())
    if union.size == 1:
        low = high = mean
    else:
        means = _stratified_means(strata, n_resamples, seed)
        low, high = (float(v) for v in np.quantile(means, [alpha / 2, 1 - alpha / 2]))
    p = sign_flip_p(union, n_permutations, seed) if union.size > 1 else math.nan
    sizes = tuple(int(s.size) for s in strata)
    return PooledPaired(mean, low, high, p, int(union.size), len(strata), pooled_sd(strata), sizes)
