"""How large a paired difference a sample can detect, and how many questions a target needs.

Normal approximation of the two-sided paired test at level ``alpha`` with power ``power``:
a true mean difference δ is detected when δ ≥ (z₁₋α/₂ + z_power) · sd / √n, where ``sd`` is the
standard deviation of the per-question paired differences. At n ≈ 10–20 the t test needs
slightly more, so these are lower bounds on what a slice needs, stated as such.
"""

from __future__ import annotations

import math
from statistics import NormalDist


def _z_sum(alpha: float, power: float) -> float:
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError(f"alpha and power must lie in (0, 1), got {alpha} and {power}")
    normal = NormalDist()
    return normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)


def min_detectable_difference(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest true mean paired difference detected with ``power`` at ``n`` pairs whose
    differences have standard deviation ``sd`` (NaN for n < 1 or an unknown sd)."""
    if n < 1 or not math.isfinite(sd):
        return math.nan
    return _z_sum(alpha, power) * sd / math.sqrt(n)


def pairs_needed(sd: float, delta: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Pairs needed to detect a true mean paired difference ``delta`` with ``power``
    (rounded up; NaN for an unknown sd or delta = 0; at least 2)."""
    if not math.isfinite(sd) or delta == 0:
        return math.nan
    return float(max(2, math.ceil((_z_sum(alpha, power) * sd / abs(delta)) ** 2)))
