"""ace_lab.eval.statistics on synthetic data whose answers are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ace_lab.eval.statistics import (
    Interval,
    bootstrap_ci,
    oracle_best_fixed,
    paired_bootstrap,
    permutation_test,
    shuffled_policy_control,
)


def _normal(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=n)


def test_bootstrap_constant_values_give_zero_width():
    ci = bootstrap_ci([0.25] * 50)
    assert ci.low == ci.high == pytest.approx(ci.mean) == pytest.approx(0.25)
    assert ci.n == 50


def test_bootstrap_interval_brackets_mean_and_is_seeded():
    x = (np.arange(200) % 3 == 0).astype(float)
    ci = bootstrap_ci(x)
    assert ci.low < ci.mean < ci.high
    assert ci.mean == pytest.approx(x.mean())
    # Roughly the normal-theory half-width 1.96 * sd / sqrt(n).
    assert ci.high - ci.low == pytest.approx(2 * 1.96 * x.std() / math.sqrt(200), rel=0.2)
    assert bootstrap_ci(x, seed=0) == ci
    assert bootstrap_ci(x, seed=1) != ci


def test_bootstrap_small_samples_and_str():
    empty = bootstrap_ci([])
    assert empty.n == 0 and math.isnan(empty.mean) and math.isnan(empty.low)
    assert bootstrap_ci([0.7]) == Interval(0.7, 0.7, 0.7, 1)
    assert str(Interval(0.4123, 0.30104, 0.5234, 10)) == "0.412 [0.301, 0.523]"


def test_paired_bootstrap_detects_a_clear_shift():
    b = _normal(100, 0)
    a = b + 0.5 + 0.1 * _normal(100, 1)
    result = paired_bootstrap(a, b)
    assert result.p_value < 0.01
    assert result.low < result.mean_diff < result.high
    assert result.low > 0.4 and result.high < 0.6
    assert paired_bootstrap(b, a).mean_diff == pytest.approx(-result.mean_diff)


def test_paired_bootstrap_identical_samples():
    x = _normal(50, 2)
    result = paired_bootstrap(x, x)
    assert result.p_value == 1.0
    assert result.mean_diff == result.low == result.high == 0.0


def test_paired_bootstrap_noise_is_not_significant():
    assert paired_bootstrap(_normal(100, 3), _normal(100, 4)).p_value > 0.05
    with pytest.raises(ValueError, match="length"):
        paired_bootstrap([1.0, 2.0], [1.0])


def test_permutation_test():
    b = _normal(100, 0)
    assert permutation_test(b + 0.5 + 0.1 * _normal(100, 1), b) < 0.01
    assert permutation_test(b, b) == 1.0
    # d = (1, 1, 1): exactly 2 of the 8 sign patterns reach |mean| = 1, so p ≈ 0.25.
    assert permutation_test([1.0, 1.0, 1.0], [0.0, 0.0, 0.0]) == pytest.approx(0.25, abs=0.02)
    seeded = {"n_permutations": 500, "seed": 3}
    assert permutation_test([1.0, 2.0], [0.0, 0.5], **seeded) == permutation_test(
        [1.0, 2.0], [0.0, 0.5], **seeded
    )


def test_shuffled_control_with_equal_policies_has_zero_sd():
    per_question = [0.0, 1.0, 0.5, 1.0, 0.0]
    scores = {"local": per_question, "global": per_question, "hybrid": per_question}
    mean, sd = shuffled_policy_control(scores, ["local", "global", "global", "hybrid", "local"])
    assert sd == 0.0
    assert mean == pytest.approx(np.mean(per_question))


def test_shuffled_control_breaks_a_perfect_router():
    # The router picks the policy that scores 1 on every question; shuffling the same mix of
    # two policies over the questions scores 1 on about half of them.
    scores = {"a": [1.0, 0.0] * 20, "b": [0.0, 1.0] * 20}
    assignment = ["a", "b"] * 20
    mean, sd = shuffled_policy_control(scores, assignment, n_permutations=2000)
    assert mean == pytest.approx(0.5, abs=0.02)
    assert 0 < sd < 0.2
    matrix = np.column_stack([scores["a"], scores["b"]])
    columns = [0, 1] * 20
    assert shuffled_policy_control(matrix, columns, n_permutations=2000) == (mean, sd)


def test_shuffled_control_validates_inputs():
    with pytest.raises(ValueError, match="unknown"):
        shuffled_policy_control({"a": [1.0]}, ["b"])
    with pytest.raises(ValueError, match="assignments"):
        shuffled_policy_control({"a": [1.0, 0.0]}, ["a"])
    with pytest.raises(ValueError, match="column"):
        shuffled_policy_control(np.zeros((2, 2)), [0, 2])


def test_oracle_best_fixed():
    name, mean = oracle_best_fixed({"local": [0.2, 0.4], "global": [0.9, 0.7], "naive": [1, 0]})
    assert name == "global" and mean == pytest.approx(0.8)
    assert oracle_best_fixed({"x": [1.0], "y": [1.0]})[0] == "x"  # first on ties
    with pytest.raises(ValueError):
        oracle_best_fixed({})
