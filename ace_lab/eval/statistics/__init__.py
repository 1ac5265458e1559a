"""ace_lab.eval.statistics: resampling (bootstrap intervals, router controls), proportions
(Wilson intervals for 0/1 scores), exact (sign-flip p-values, Holm), pooled (slices pooled,
stratified) and power (minimal detectable difference and questions needed, paired t)."""

from ace_lab.eval.statistics.exact import holm, sign_flip_p
from ace_lab.eval.statistics.pooled import PooledPaired, stratified_paired
from ace_lab.eval.statistics.power import TARGET_DIFF, min_detectable_difference, pairs_needed
from ace_lab.eval.statistics.proportions import (
    is_proportion,
    mean_interval,
    proportion_ci,
    wilson_interval,
)
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
    "TARGET_DIFF",
    "Interval",
    "PairedInterval",
    "PooledPaired",
    "bootstrap_ci",
    "holm",
    "is_proportion",
    "mean_interval",
    "min_detectable_difference",
    "oracle_best_fixed",
    "paired_bootstrap",
    "pairs_needed",
    "permutation_test",
    "proportion_ci",
    "shuffled_policy_control",
    "sign_flip_p",
    "stratified_paired",
    "wilson_interval",
]
