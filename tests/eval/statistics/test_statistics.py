"""ace_lab.eval.statistics on synthetic data whose answers are known."""

from __future__ import annotations

import itertools
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
from ace_lab.eval.statistics.exact import (
    EXACT_MAX,
    exact_sign_flip,
    holm,
    monte_carlo_sign_flip,
    sign_flip_p,
)
from ace_lab.eval.statistics.pooled import pooled_sd, stratified_paired
from ace_lab.eval.statistics.power import min_detectable_difference, pairs_needed, t_sum


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
    few = {"n_resamples": 200}  # with the default 10,000 another seed rarely moves a bound
    assert bootstrap_ci(x, seed=1, **few) != bootstrap_ci(x, seed=0, **few)


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
    assert permutation_test([1.0, 1.0, 1.0], [0.0, 0.0, 0.0]) == 0.25  # exact
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


# ------------------------------------------------------------------------- exact sign flips
def _brute_force(d: np.ndarray) -> float:
    observed = abs(d.sum())
    hits = sum(
        abs(np.dot(s, d)) >= observed - 1e-9 for s in itertools.product([-1, 1], repeat=d.size)
    )
    return hits / 2**d.size


def test_exact_sign_flip_equals_full_enumeration_with_zeros_and_ties():
    rng = np.random.default_rng(5)
    levels = np.array([-1.0, -0.5, -1 / 3, 0.0, 0.0, 1 / 3, 0.5, 2 / 3, 1.0])  # F1-like steps
    for n in (1, 2, 3, 6, 9, 12):
        for _ in range(10):
            d = rng.choice(levels, n)
            assert exact_sign_flip(d) == pytest.approx(_brute_force(d), abs=1e-12), d


def test_exact_sign_flip_edge_cases():
    assert exact_sign_flip([0.0, 0.0]) == 1.0  # nothing to flip
    assert exact_sign_flip([0.5, -0.5]) == 1.0  # observed sum 0: every pattern as extreme
    assert exact_sign_flip([1.0] * 10) == pytest.approx(2 / 2**10)  # only all-+ and all-−
    assert exact_sign_flip([1.0] * 10 + [0.0] * 30) == pytest.approx(2 / 2**10)  # zeros dropped
    with pytest.raises(ValueError, match="too large"):
        exact_sign_flip(np.ones(EXACT_MAX + 1))
    assert math.isnan(sign_flip_p([]))


def test_sign_flip_is_exact_up_to_24_and_monte_carlo_beyond():
    d = _normal(EXACT_MAX, 7) + 0.3
    assert sign_flip_p(d, seed=0) == sign_flip_p(d, seed=1) == exact_sign_flip(d)
    longer = np.concatenate([d, [0.2]])
    mc = sign_flip_p(longer, n_permutations=20_000, seed=0)
    assert mc != sign_flip_p(longer, n_permutations=20_000, seed=1)  # seeded Monte Carlo
    assert mc == pytest.approx(monte_carlo_sign_flip(longer, 20_000, 0))
    assert mc == pytest.approx(exact_sign_flip(d), abs=0.05)  # one more pair: a similar p


def test_exact_p_is_larger_than_the_bootstrap_share_at_small_n():
    """The reason for the change: at n = 8 the bootstrap's "other side of 0" share understates p."""
    a = np.array([1.0, 1.0, 0.5, 1.0, 0.0, 1.0, 0.5, 1.0])
    b = np.array([0.5, 0.0, 0.5, 0.0, 0.5, 1.0, 0.0, 0.5])
    means = np.random.default_rng(0).choice(a - b, (10_000, 8)).mean(axis=1)
    assert permutation_test(a, b) > 1.5 * 2 * float((means <= 0).mean())


def test_holm_step_down():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    adjusted = holm([0.2, float("nan"), 0.9])
    assert adjusted[0] == pytest.approx(0.4) and math.isnan(adjusted[1]) and adjusted[2] == 0.9
    assert holm([0.6, 0.7]) == [1.0, 1.0]  # capped
    assert holm([]) == []


# --------------------------------------------------------------------------- stable bounds
def test_two_seeds_give_bounds_within_001_on_a_realistic_n20_case():
    """F1 of two systems on 20 questions (many 0/1, some partial): 10,000 resamples keep every
    bound within ±0.01 across seeds (2,000 moved them by up to 0.057)."""
    rng = np.random.default_rng(11)
    levels = [0.0, 0.0, 0.25, 0.4, 0.5, 0.667, 1.0, 1.0, 1.0]
    a, b = rng.choice(levels, 20), rng.choice(levels, 20)
    for seeds in [(0, 1), (2, 3), (4, 5)]:
        one, two = (bootstrap_ci(a, seed=s) for s in seeds)
        assert abs(one.low - two.low) <= 0.01 and abs(one.high - two.high) <= 0.01
        one, two = (paired_bootstrap(a, b, seed=s) for s in seeds)
        assert abs(one.low - two.low) <= 0.01 and abs(one.high - two.high) <= 0.01
        assert one.p_value == two.p_value  # exact: no seed


# ------------------------------------------------------------------------ power and pooling
def test_minimal_detectable_difference_uses_t_quantiles():
    # t tables, 19 degrees of freedom: t_0.975 = 2.0930, t_0.80 = 0.8610;
    # (2.0930 + 0.8610) * 0.3 / sqrt(20) = 0.19815 (the normal quantiles gave 0.1879)
    assert min_detectable_difference(0.3, 20) == pytest.approx(0.19815, abs=1e-4)
    # 9 degrees of freedom: t_0.975 = 2.2622, t_0.80 = 0.8834; 3.1456 * 0.426 / sqrt(10) = 0.4237
    assert min_detectable_difference(0.426, 10) == pytest.approx(0.4237, abs=1e-4)
    assert t_sum(10) == pytest.approx(3.1456, abs=1e-4)
    assert math.isnan(min_detectable_difference(float("nan"), 20))
    assert math.isnan(min_detectable_difference(0.3, 1))  # no degrees of freedom
    with pytest.raises(ValueError, match="two pairs"):
        t_sum(1)


def test_pairs_needed_is_the_fewest_pairs_reaching_the_target():
    # the normal formula's ceil((2.8016 * 0.3 / 0.05) ** 2) = 283 is short of the t test's power
    need = int(pairs_needed(0.3, 0.05))
    assert need == 285 and pairs_needed(0.3) == need  # 0.05 is the default target
    assert min_detectable_difference(0.3, need) <= 0.05 < min_detectable_difference(0.3, need - 1)
    assert pairs_needed(0.3, -0.05) == need  # the sign of the target does not matter
    assert pairs_needed(0.0, 0.05) == 2
    assert math.isnan(pairs_needed(0.3, 0.0)) and math.isnan(pairs_needed(float("nan"), 0.05))


def test_stratified_paired_pools_slices():
    rng = np.random.default_rng(3)
    slices = [(rng.random(20) + 0.2, rng.random(20)), (rng.random(10) + 5, rng.random(10) + 4.8)]
    pooled = stratified_paired(slices)
    union = np.concatenate([a - b for a, b in slices])
    assert pooled.mean_diff == pytest.approx(union.mean())
    assert pooled.n == 30 and pooled.slices == 2 and pooled.sizes == (20, 10)
    assert pooled.low < pooled.mean_diff < pooled.high
    assert pooled.p_value == sign_flip_p(union)
    # within-slice spread: the slices' different levels do not inflate the sd
    assert pooled.sd == pytest.approx(pooled_sd([a - b for a, b in slices]))
    assert pooled.sd < 0.5
    empty = stratified_paired([(np.array([]), np.array([]))])
    assert empty.n == 0 and math.isnan(empty.mean_diff) and empty.sizes == ()
