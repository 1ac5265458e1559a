"""How large a paired difference a sample can detect, and how many questions a target needs.

The paired t test at level ``alpha`` (two-sided) with power ``power``: a true mean difference δ
is detected when δ ≥ (t₁₋α/₂,ₙ₋₁ + t_power,ₙ₋₁) · sd / √n, where ``sd`` is the standard
deviation of the per-question paired differences and t_q,ₙ₋₁ the q quantile of Student's t with
n − 1 degrees of freedom (the usual approximation that ignores the noncentrality of the
alternative: by the exact noncentral t, a difference of this size is detected with power 0.79
at n = 5 and 0.80 at n ≥ 10). The normal quantiles (z₀.₉₇₅ + z₀.₈ = 2.80) understate it at
this suite's n: t's sum is 3.15 at n = 10 and 2.95 at n = 20, so a slice of 10 detects only
differences 12 % larger than the normal formula says.
"""

from __future__ import annotations

import math
from statistics import NormalDist

from scipy.stats import t as student_t

#: The difference the suite sizes a slice for (``n_for_+0.05`` columns).
TARGET_DIFF = 0.05


def _check(alpha: float, power: float) -> None:
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError(f"alpha and power must lie in (0, 1), got {alpha} and {power}")


def t_sum(n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """t₁₋α/₂ + t_power with n − 1 degrees of freedom (n ≥ 2): the multiple of sd / √n a true
    difference must reach to be detected."""
    _check(alpha, power)
    if n < 2:
        raise ValueError(f"a paired t test needs two pairs, got {n}")
    dof = n - 1
    return float(student_t.ppf(1 - alpha / 2, dof) + student_t.ppf(power, dof))


def min_detectable_difference(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest true mean paired difference the paired t test detects with ``power`` at ``n``
    pairs whose differences have standard deviation ``sd`` (NaN for n < 2 or an unknown sd)."""
    _check(alpha, power)
    if n < 2 or not math.isfinite(sd):
        return math.nan
    return t_sum(n, alpha, power) * sd / math.sqrt(n)


def pairs_needed(
    sd: float, delta: float = TARGET_DIFF, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Fewest pairs (at least 2) at which :func:`min_detectable_difference` reaches ``delta``
    for paired differences of standard deviation ``sd`` (NaN for an unknown sd or delta = 0)."""
    _check(alpha, power)
    if not math.isfinite(sd) or delta == 0:
        return math.nan
    target = abs(delta)
    # the normal-quantile n is a lower bound (t quantiles exceed z's), so count up from it
    normal = NormalDist()
    z = normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)
    n = max(2, math.ceil((z * sd / target) ** 2))
    while min_detectable_difference(sd, n, alpha, power) > target:
        n += 1
    return float(n)
