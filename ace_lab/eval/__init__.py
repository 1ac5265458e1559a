"""Evaluation core: answer metrics, uncertainty statistics and the pairwise LLM judge."""

from ace_lab.eval.judge import (
    CRITERIA,
    CriterionVerdict,
    JudgeVerdict,
    PairVerdict,
    judge_pair,
    tie_verdict,
    win_rates,
)
from ace_lab.eval.metrics import (
    answer_in_context,
    coverage_and_recovery,
    exact_match,
    extract_final_answer,
    f1_score,
    is_yes_no,
    normalize_answer,
    support_recall,
)
from ace_lab.eval.stats import (
    Interval,
    PairedInterval,
    bootstrap_ci,
    oracle_best_fixed,
    paired_bootstrap,
    permutation_test,
    shuffled_policy_control,
)

__all__ = [
    "CRITERIA",
    "CriterionVerdict",
    "Interval",
    "JudgeVerdict",
    "PairVerdict",
    "PairedInterval",
    "answer_in_context",
    "bootstrap_ci",
    "coverage_and_recovery",
    "exact_match",
    "extract_final_answer",
    "f1_score",
    "is_yes_no",
    "judge_pair",
    "normalize_answer",
    "oracle_best_fixed",
    "paired_bootstrap",
    "permutation_test",
    "shuffled_policy_control",
    "support_recall",
    "tie_verdict",
    "win_rates",
]
