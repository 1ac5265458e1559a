"""Evaluation: scoring answered questions, running methods over slices, and the result tables.

Modules: ``metrics`` (EM/F1, coverage), ``stats`` (bootstrap, permutation, controls),
``judge``/``judging`` (pairwise LLM judge and its stored verdicts), ``record`` (one question's
result), ``study`` (a study's files and manifest), ``runner`` (a method over a slice),
``tables`` (result tables; a method's own are in its report package), ``export``
(markdown/LaTeX/CSV), ``report`` and ``plots`` (what notebooks 06–08 call). The package exports
the metric, statistics and judge core below.
"""

from ace_lab.eval.judging.judge import (
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
    f1_score,
    is_yes_no,
    normalize_answer,
    support_recall,
)
from ace_lab.eval.statistics import (
    Interval,
    PairedInterval,
    bootstrap_ci,
    oracle_best_fixed,
    paired_bootstrap,
    permutation_test,
    shuffled_policy_control,
)
from ace_lab.methods.final_answer import extract_final_answer  # rescoring uses the same reader

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
