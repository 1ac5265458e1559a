"""ace_lab.eval.statistics.proportions: Wilson intervals against values computed by hand from
the score formula, and the choice between Wilson and the bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ace_lab.eval.statistics.proportions import (
    is_proportion,
    mean_interval,
    proportion_ci,
    wilson_interval,
)
from ace_lab.eval.statistics.resampling import Interval, bootstrap_ci


def test_wilson_matches_hand_computed_values():
    # z = 1.95996; 0/10: high = z²/n / (1 + z²/n) = 0.38415 / 1.38415 = 0.27753
    assert wilson_interval(0, 10) == (0.0, pytest.approx(0.27753, abs=1e-5))
    # 5/10: centre 0.5, half = z·sqrt(0.025 + 0.0096)/1.38415 = 0.26341
    low, high = wilson_interval(5, 10)
    assert (low, high) == (pytest.approx(0.23659, abs=1e-5), pytest.approx(0.76341, abs=1e-5))
    assert wilson_interval(10, 10) == (pytest.approx(0.72247, abs=1e-5), 1.0)  # mirror of 0/10
    # 2/20 at 90 %: z = 1.64485, z²/n = 0.13528, centre (0.1 + 0.06764)/1.13528 = 0.14766,
    # half 1.64485·sqrt(0.0045 + 0.00169)/1.13528 = 0.11400
    low, high = wilson_interval(2, 20, alpha=0.10)
    assert (low, high) == (pytest.approx(0.03366, abs=1e-4), pytest.approx(0.26166, abs=1e-4))


def test_no_wilson_interval_at_small_n_has_zero_width():
    for n in range(1, 21):
        for successes in range(n + 1):
            low, high = wilson_interval(successes, n)
            assert 0.0 <= low <= successes / n <= high <= 1.0
            assert high - low > 0.1  # at n <= 20 every interval is wide
    widths = [wilson_interval(0, n)[1] for n in (5, 10, 20)]
    assert widths == sorted(widths, reverse=True)  # more questions, a narrower interval


def test_wilson_rejects_impossible_counts():
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(11, 10)
    with pytest.raises(ValueError, match="alpha"):
        wilson_interval(1, 10, alpha=1.5)


def test_proportion_ci_and_is_proportion():
    ci = proportion_ci([0.0] * 10)
    assert ci == Interval(0.0, 0.0, pytest.approx(0.27753, abs=1e-5), 10)
    assert str(ci) == "0.000 [0.000, 0.278]"
    assert proportion_ci([1, 0, 1, 0, 1, 0, 1, 0, 1, 0]).low == pytest.approx(0.23659, abs=1e-5)
    assert proportion_ci([]).n == 0 and math.isnan(proportion_ci([]).mean)
    with pytest.raises(ValueError, match="0 or 1"):
        proportion_ci([0.0, 0.5])
    assert is_proportion([0, 1, 1.0]) and not is_proportion([0, 0.5]) and not is_proportion([])


def test_mean_interval_uses_wilson_for_zero_one_scores_and_the_bootstrap_otherwise():
    zeros = np.zeros(10)
    assert bootstrap_ci(zeros).high == 0.0  # what the tables showed before
    assert mean_interval(zeros).high == pytest.approx(0.27753, abs=1e-5)
    f1 = np.array([0.0, 0.5, 1.0, 0.25, 0.0, 1.0, 0.4, 0.0, 0.0, 1.0])
    assert mean_interval(f1, seed=3) == bootstrap_ci(f1, seed=3)
    assert mean_interval([1.0]).low == pytest.approx(0.20654, abs=1e-5)  # 1/1 has width too
