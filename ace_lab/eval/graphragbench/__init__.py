"""ace_lab.eval.graphragbench: context, judge, plots, rouge, scoring, store."""

from ace_lab.eval.graphragbench.scoring import (
    GENERATION_METRICS,
    IMPLEMENTED,
    JUDGED,
    RETRIEVAL_METRICS,
    answer_contexts,
    metrics_for,
    score_many,
    score_question,
    summarize,
    weighted_overall,
)

__all__ = [
    "GENERATION_METRICS",
    "IMPLEMENTED",
    "JUDGED",
    "RETRIEVAL_METRICS",
    "answer_contexts",
    "metrics_for",
    "score_many",
    "score_question",
    "summarize",
    "weighted_overall",
]
