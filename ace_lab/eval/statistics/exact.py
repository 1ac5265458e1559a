"""Exact small-sample tests: sign-flip permutation p-values and Holm's step-down correction.

A paired difference's sign is, under the null of no effect, equally likely either way; with
n ≤ :data:`EXACT_MAX` differences every one of the 2ⁿ sign patterns is enumerated (by meet in
the middle: the sums of each half are combined with a sorted search, so n = 24 costs two arrays
of 4,096), so the p-value is exact rather than a Monte Carlo estimate that moves with the seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

#: Largest number of non-zero differences whose 2ⁿ sign patterns are enumerated.
EXACT_MAX = 24
#: Rows of random sign patterns drawn at once in the Monte Carlo fallback.
_BLOCK = 1000


def _tolerance(values: np.ndarray) -> float:
    """Slack for "as extreme as observed": sums in another order differ in the last bits."""
    return 1e-9 * max(1.0, float(np.abs(values).sum()))


def _signed_sums(values: np.ndarray) -> np.ndarray:
    """Σ ± values over all 2ⁿ sign patterns (n small)."""
    sums = np.zeros(1)
    for value in values:
        sums = np.concatenate([sums + value, sums - value])
    return sums


def exact_sign_flip(values: ArrayLike) -> float:
    """Exact two-sided sign-flip p-value of Σ values = 0: the share of the 2ⁿ sign patterns
    whose |Σ ± values| is at least the observed |Σ values|.

    ``values`` are (weighted) paired differences; zeros are dropped (flipping them changes
    nothing, so they scale numerator and denominator alike) and ties with the observed sum
    count as extreme. All zeros give p = 1; more than :data:`EXACT_MAX` non-zero values raise.
    """
    x = np.asarray(values, dtype=float)
    x = x[x != 0]
    if x.size == 0:
        return 1.0
    if x.size > EXACT_MAX:
        raise ValueError(f"{x.size} non-zero differences: 2^n too large (max {EXACT_MAX})")
    observed = abs(float(x.sum())) - _tolerance(x)
    if observed <= 0:  # a zero observed sum: every pattern is as extreme
        return 1.0
    half = x.size // 2
    left, right = _signed_sums(x[:half]), np.sort(_signed_sums(x[half:]))
    # pairs with left + right >= observed, plus pairs with left + right <= -observed
    upper = right.size - np.searchsorted(right, observed - left, side="left")
    lower = np.searchsorted(right, -observed - left, side="right")
    extreme = int(upper.sum() + lower.sum())
    return extreme / 2.0**x.size


def monte_carlo_sign_flip(values: ArrayLike, n_permutations: int = 100_000, seed: int = 0) -> float:
    """Monte Carlo two-sided sign-flip p-value, (1 + #{|Σ ± values| ≥ |Σ values|}) /
    (1 + n_permutations): never 0 and valid at any n. Zeros change nothing and are dropped."""
    x = np.asarray(values, dtype=float)
    x = x[x != 0]
    if x.size == 0:
        return 1.0
    rng = np.random.default_rng(seed)
    observed = abs(float(x.sum())) - _tolerance(x)
    extreme = 0
    for start in range(0, n_permutations, _BLOCK):
        rows = min(_BLOCK, n_permutations - start)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(rows, x.size))
        extreme += int((np.abs(signs @ x) >= observed).sum())
    return (1 + extreme) / (1 + n_permutations)


def sign_flip_p(values: ArrayLike, n_permutations: int = 100_000, seed: int = 0) -> float:
    """Two-sided sign-flip p-value: exact (:func:`exact_sign_flip`) for at most
    :data:`EXACT_MAX` non-zero values, else Monte Carlo (:func:`monte_carlo_sign_flip`).
    NaN for no values."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return float("nan")
    if np.count_nonzero(x) <= EXACT_MAX:
        return exact_sign_flip(x)
    return monte_carlo_sign_flip(x, n_permutations, seed)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of a family of p-values (same order; NaNs stay NaN and are
    not counted in the family): the k-th smallest of m is multiplied by m − k + 1, made
    monotone and capped at 1. Controls the family-wise error rate without independence."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = order.size
    running = 0.0
    for k, index in enumerate(order):
        running = max(running, min(1.0, (m - k) * float(p[index])))
        out[index] = running
    return [float(v) for v in out]
