"""Uncertainty for small evaluation samples: bootstrap intervals, paired tests, router controls.

Every procedure is seeded (``np.random.default_rng(seed)``) so a rerun of a notebook reports
the same interval; intervals use :data:`N_RESAMPLES` resamples by default, enough that another
seed moves a bound by about 0.005 at n = 20 (2,000 moved it by up to 0.057 at n = 5–20).
Paired p-values are sign-flip tests, exact up to 24 pairs (:mod:`ace_lab.eval.statistics.exact`).
Paired procedures take per-question scores of two systems in the same question order; the
pairing removes the between-question variance that dominates at n≈200.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ace_lab.eval.statistics.exact import sign_flip_p

#: Default bootstrap resamples of every interval.
N_RESAMPLES = 10_000
#: Rows of resamples drawn at once: bounds memory at ~8 MB per 1000 questions.
_BLOCK = 1000


@dataclass(frozen=True)
class Interval:
    """A mean with a percentile-bootstrap confidence interval over ``n`` values."""

    mean: float
    low: float
    high: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:.3f} [{self.low:.3f}, {self.high:.3f}]"


@dataclass(frozen=True)
class PairedInterval:
    """Mean of paired differences a − b, its bootstrap interval and a two-sided sign-flip
    p-value."""

    mean_diff: float
    low: float
    high: float
    p_value: float
    n: int

    @property
    def interval(self) -> str:
        """``+0.083 [-0.102, +0.271]``: the difference and its interval, as tables show them."""
        return f"{self.mean_diff:+.3f} [{self.low:+.3f}, {self.high:+.3f}]"

    def __str__(self) -> str:
        return f"{self.interval} p={self.p_value:.3g}"


def _vector(values: ArrayLike) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"expected a 1-D sequence of scores, got shape {array.shape}")
    return array


def _paired_diff(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    a, b = _vector(a), _vector(b)
    if a.shape != b.shape:
        raise ValueError(f"paired samples differ in length: {a.size} vs {b.size}")
    return a - b


def _bootstrap_means(values: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Means of ``n_resamples`` resamples (with replacement) of ``values``."""
    rng = np.random.default_rng(seed)
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, _BLOCK):
        rows = min(_BLOCK, n_resamples - start)
        picks = rng.integers(0, values.size, (rows, values.size))
        out[start : start + rows] = values[picks].mean(axis=1)
    return out


def _percentiles(means: np.ndarray, alpha: float) -> tuple[float, float]:
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def bootstrap_ci(
    values: ArrayLike, n_resamples: int = N_RESAMPLES, alpha: float = 0.05, seed: int = 0
) -> Interval:
    """Mean of ``values`` with a (1 − alpha) percentile-bootstrap interval.

    n = 0 gives NaNs; n = 1 gives a zero-width interval at the value (nothing to resample).
    """
    x = _vector(values)
    if x.size == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0)
    mean = float(x.mean())
    if x.size == 1:
        return Interval(mean, mean, mean, 1)
    low, high = _percentiles(_bootstrap_means(x, n_resamples, seed), alpha)
    return Interval(mean, low, high, int(x.size))


def paired_bootstrap(
    a: ArrayLike,
    b: ArrayLike,
    n_resamples: int = N_RESAMPLES,
    alpha: float = 0.05,
    seed: int = 0,
    n_permutations: int = 100_000,
) -> PairedInterval:
    """Bootstrap interval of the mean paired difference a − b (questions resampled as pairs)
    with the two-sided sign-flip p-value of :func:`permutation_test`.

    (The bootstrap's own "share on the other side of 0" p-value is 2–6× too small at
    n = 5–20, so it is not used.) Fewer than two pairs give p = NaN.
    """
    d = _paired_diff(a, b)
    if d.size == 0:
        return PairedInterval(float("nan"), float("nan"), float("nan"), float("nan"), 0)
    mean = float(d.mean())
    if d.size == 1:
        return PairedInterval(mean, mean, mean, float("nan"), 1)
    low, high = _percentiles(_bootstrap_means(d, n_resamples, seed), alpha)
    p = sign_flip_p(d, n_permutations, seed)
    return PairedInterval(mean, low, high, p, int(d.size))


def permutation_test(
    a: ArrayLike, b: ArrayLike, n_permutations: int = 100_000, seed: int = 0
) -> float:
    """Two-sided paired sign-flip permutation test of mean(a − b) = 0.

    Under the null each question's difference is equally likely to have either sign. With at
    most 24 non-zero differences all 2ⁿ sign patterns are enumerated (exact, no seed); beyond,
    ``n_permutations`` seeded random patterns give (1 + #{as extreme}) / (1 + n_permutations).
    Zero differences and ties are handled exactly. Returns NaN for empty samples.
    """
    return sign_flip_p(_paired_diff(a, b), n_permutations, seed)


def shuffled_policy_control(
    scores: Mapping[str, Sequence[float]] | ArrayLike,
    assignment: Sequence[str] | Sequence[int],
    n_permutations: int = 1000,
    seed: int = 0,
) -> tuple[float, float]:
    """ACE's "Shuffled Router": the router's policy mix with the query→policy link broken.

    ``scores`` is either a mapping policy name → per-question scores (all the same length)
    with ``assignment`` the chosen policy *name* per question, or a 2-D array (questions ×
    policies) with ``assignment`` the chosen *column index* per question. Each permutation
    shuffles the assignment across questions (so each policy is used as often as the router
    used it) and averages the score of the assigned policy. Returns the mean and the
    (population) standard deviation of that average over permutations; a router that beats
    this mean routes better than its policy mix alone explains.
    """
    if isinstance(scores, Mapping):
        if not scores:
            raise ValueError("no policies to assign")
        lookup = {name: i for i, name in enumerate(scores)}
        matrix = np.column_stack([_vector(values) for values in scores.values()])
        unknown = sorted({str(p) for p in assignment if p not in lookup})
        if unknown:
            raise ValueError(f"assignment names unknown policies: {unknown}")
        columns = np.array([lookup[p] for p in assignment], dtype=int)
    else:
        matrix = np.asarray(scores, dtype=float)
        columns = np.asarray(assignment, dtype=int)
        if matrix.ndim != 2 or not ((columns >= 0) & (columns < matrix.shape[1])).all():
            raise ValueError("scores must be questions × policies and assignment column indices")
    if columns.size != matrix.shape[0]:
        raise ValueError(f"{columns.size} assignments for {matrix.shape[0]} questions")
    if columns.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    shuffled = rng.permuted(np.tile(columns, (n_permutations, 1)), axis=1)
    averages = matrix[np.arange(columns.size), shuffled].mean(axis=1)
    return float(averages.mean()), float(averages.std())


def oracle_best_fixed(scores: Mapping[str, Sequence[float]]) -> tuple[str, float]:
    """The fixed policy with the highest mean score, chosen in hindsight (first on ties).

    An upper reference for "pick one policy for all questions"; it peeks at the test scores.
    """
    if not scores:
        raise ValueError("no policies to choose from")
    means = {name: float(_vector(values).mean()) for name, values in scores.items()}
    best = max(means, key=lambda name: means[name])
    return best, means[best]
