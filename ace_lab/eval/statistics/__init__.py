"""ace_lab.eval.statistics: resampling."""

from ace_lab.eval.statistics.resampling import (
    Interval,
    PairedInterval,
    bootstrap_ci,
    oracle_best_fixed,
    paired_bootstrap,
    permutation_test,
    shuffled_policy_control,
)

__all__ = [
    "Interval",
    "PairedInterval",
    "bootstrap_ci",
    "oracle_best_fixed",
    "paired_bootstrap",
    "permutation_test",
    "shuffled_policy_control",
]
