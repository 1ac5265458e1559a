"""ace_lab.eval.metrics: answers, context_stats, evidence (with facts)."""

from ace_lab.eval.metrics.answers import (
    ANSWER_FORMATS,
    answer_format,
    answer_in_context,
    coverage_and_recovery,
    exact_match,
    f1_score,
    is_yes_no,
    normalize_answer,
    passage_recall,
    provenance_recall,
    support_recall,
)

__all__ = [
    "ANSWER_FORMATS",
    "answer_format",
    "answer_in_context",
    "coverage_and_recovery",
    "exact_match",
    "f1_score",
    "is_yes_no",
    "normalize_answer",
    "passage_recall",
    "provenance_recall",
    "support_recall",
]
