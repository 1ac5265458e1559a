"""ace_lab.eval.statistics: resampling (bootstrap intervals, router controls), exact (sign-flip
p-values, Holm), pooled (slices pooled, stratified) and power (minimal detectable difference)."""

from ace_lab.eval.statistics.exact import holm, sign_flip_p
from ace_lab.eval.statistics.pooled import PooledPaired, stratified_paired
from ace_lab.eval.statistics.power import min_detectable_difference, pairs_needed
from ace_lab.eval.statistics.resampling import (
    N_RESAMPLES,
    Interval,
    PairedInterval,
    bootstrap_ci,
    oracle_best_fixed,
    paired_bootstrap,
    permutation_test,
    shuffled_policy_control,
)

__all__ = [
    "N_RESAMPLES",
    "Interval",
    "PairedInterval",
    "PooledPaired",
    "bootstrap_ci",
    "holm",
    "min_detectable_difference",
    "oracle_best_fixed",
    "paired_bootstrap",
    "pairs_needed",
    "permutation_test",
    "shuffled_policy_control",
    "sign_flip_p",
    "stratified_paired",
]
