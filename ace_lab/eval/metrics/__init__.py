"""ace_lab.eval.metrics: answers, context_stats, evidence (with facts), and the table of metrics
(:mod:`ace_lab.eval.metrics.table`: one row per record column scoring an answer or a context)."""

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
