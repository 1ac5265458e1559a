"""GraphRAG-Bench scoring: which metric each question type gets, per-question scores, and the
per-type and query-count-weighted overall table.

Which metrics (GraphRAG-Bench/GraphRAG-Benchmark, ``Evaluation/generation_eval.py``
``metric_config`` and ``Evaluation/retrieval_eval.py``):

=====================  ==========================================================
Fact Retrieval         ROUGE-L, Answer Correctness
Complex Reasoning      ROUGE-L, Answer Correctness
Contextual Summarize   Answer Correctness, Coverage
Creative Generation    Answer Correctness, Coverage, Faithfulness
every type             Context Relevancy, Evidence Recall (retrieval evaluation)
=====================  ==========================================================

A question of a type the reference does not know gets only the retrieval metrics (the reference
skips such types in its generation evaluation). Each judged metric's per-statement verdicts are
returned in the row's ``verdicts`` (metric → list of ``{"statement", "verdict", "reason"}``).

The reference averages each metric per question type with ``np.nanmean``. :func:`summarize`
reports those per-type means with a bootstrap interval, and an *overall* row (:data:`OVERALL`:
ours, the benchmark reports per type only) weighted by query count:
``Σ_t n_t · mean_t / Σ_t n_t`` with ``n_t`` the type's questions with a valid (non-NaN)
score, i.e. every valid question counts once whatever its type. ROUGE-L's overall therefore
covers only the two types that use it. Every row names the judge (and embedding) model its
numbers come from. Metric definitions: :mod:`ace_lab.eval.graphragbench.judge`,
:mod:`ace_lab.eval.graphragbench.attribution` and :mod:`ace_lab.eval.graphragbench.rouge`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ace_lab.data import Question
from ace_lab.data.graphragbench import QUESTION_TYPES
from ace_lab.embed import Embedder
from ace_lab.eval.graphragbench.attribution import (
    context_relevance,
    evidence_recall,
    faithfulness,
)
from ace_lab.eval.graphragbench.judge import answer_correctness, coverage_score
from ace_lab.eval.graphragbench.rouge import rouge_score
from ace_lab.eval.statistics import bootstrap_ci
from ace_lab.evidence import Answer
from ace_lab.llm import LLM

FR, CR, CS, CG = QUESTION_TYPES
#: Generation metrics per question type, as the reference's ``metric_config``.
GENERATION_METRICS: dict[str, tuple[str, ...]] = {
    FR: ("rouge_score", "answer_correctness"),
    CR: ("rouge_score", "answer_correctness"),
    CS: ("answer_correctness", "coverage_score"),
    CG: ("answer_correctness", "coverage_score", "faithfulness"),
}
#: Retrieval metrics, computed for every question (``retrieval_eval.py``).
RETRIEVAL_METRICS = ("context_relevancy", "evidence_recall")
#: The metrics this module computes, in table order.
IMPLEMENTED = (
    "answer_correctness",
    "rouge_score",
    "coverage_score",
    "faithfulness",
    "evidence_recall",
    "context_relevancy",
)
#: Metrics read from a judge LLM (ROUGE-L needs no model at all).
JUDGED = (
    "answer_correctness",
    "coverage_score",
    "faithfulness",
    "evidence_recall",
    "context_relevancy",
)
#: The ``type`` of :func:`summarize`'s row over every type: ours, not the benchmark's.
OVERALL = "Overall (query-weighted, not an official figure)"


def metrics_for(question_type: str | None, include: Iterable[str] = IMPLEMENTED) -> list[str]:
    """The implemented metrics a question of ``question_type`` is scored with, in table order."""
    wanted = set(GENERATION_METRICS.get(question_type or "", ())) | set(RETRIEVAL_METRICS)
    allowed = set(include)
    return [m for m in IMPLEMENTED if m in wanted and m in allowed]


def answer_contexts(answer: Answer) -> list[str]:
    """The texts of a method's final context, in order: what the retrieval judges read."""
    return [e.text for e in answer.context.evidence]


def score_question(
    llm: LLM,
    question: Question,
    answer: str,
    contexts: Sequence[str],
    embedder: Embedder | None = None,
    include: Iterable[str] = IMPLEMENTED,
) -> dict[str, Any]:
    """One question's scores (the metrics :func:`metrics_for` gives its type), with the judge
    and embedding models and, per metric, the judge calls that fell back."""
    gold = question.answer or ""
    row: dict[str, Any] = {"id": question.id, "type": question.type, "judge_model": None}
    row["embed_model"] = None
    fallbacks: dict[str, list[str]] = {}
    verdicts: dict[str, list[dict[str, Any]]] = {}
    for metric in metrics_for(question.type, include):
        if metric == "rouge_score":
            row[metric] = rouge_score(answer, gold)
            continue
        if metric == "answer_correctness":
            detail = answer_correctness(llm, question.question, answer, gold, embedder)
            row["factuality"] = detail["factuality"]
            row["semantic_similarity"] = detail["semantic_similarity"]
            row["embed_model"] = detail["embed_model"]
        elif metric == "coverage_score":
            detail = coverage_score(llm, question.question, answer, gold)
        elif metric == "faithfulness":
            detail = faithfulness(llm, question.question, answer, contexts)
        elif metric == "evidence_recall":
            evidence = list(question.extra.get("evidence_statements", ()))
            detail = evidence_recall(llm, question.question, contexts, evidence)
        else:
            detail = context_relevance(llm, question.question, contexts)
        row[metric] = detail[metric]
        row["judge_model"] = detail["judge_model"]
        if detail["fallbacks"]:
            fallbacks[metric] = detail["fallbacks"]
        verdicts[metric] = detail.get("verdicts", [])
    row["fallbacks"] = fallbacks
    row["verdicts"] = verdicts
    return row


def score_many(
    llm: LLM,
    items: Sequence[tuple[Question, str, Sequence[str]]],
    embedder: Embedder | None = None,
    include: Iterable[str] = IMPLEMENTED,
    desc: str | None = None,
) -> list[dict[str, Any]]:
    """:func:`score_question` for ``(question, answer, contexts)`` items, run through
    ``llm.map`` (concurrent up to the LLM's limit), results in input order."""
    wanted = tuple(include)
    return llm.map(lambda item: score_question(llm, *item, embedder, wanted), items, desc=desc)


def _models(values: Iterable[Any]) -> str | None:
    names = sorted({str(v) for v in values if isinstance(v, str) and v})
    return ", ".join(names) if names else None


def _valid(values: Iterable[Any]) -> list[float]:
    out = []
    for v in values:
        if isinstance(v, int | float) and not isinstance(v, bool) and not math.isnan(v):
            out.append(float(v))
    return out


def weighted_overall(per_type: Mapping[str, tuple[float, int]]) -> float:
    """``Σ n_t · mean_t / Σ n_t`` over the types with ``n_t > 0`` (NaN when none has any)."""
    total = sum(n for _, n in per_type.values() if n > 0)
    if total == 0:
        return float("nan")
    return sum(mean * n for mean, n in per_type.values() if n > 0) / total


def summarize(scores: Sequence[Mapping[str, Any]] | pd.DataFrame) -> pd.DataFrame:
    """Per metric: one row per question type (reference order) and an ``Overall`` row.

    Columns: ``metric``, ``type``, ``n`` (questions with a valid score), ``mean`` with its 95 %
    bootstrap interval ``low``/``high`` (per type; the overall interval resamples every valid
    question), ``judge_model`` and ``embed_model`` (None where the metric uses none). Types
    without a valid score for a metric are left out; so is a metric nobody was scored with.
    """
    frame = pd.DataFrame(scores) if not isinstance(scores, pd.DataFrame) else scores
    rows: list[dict[str, Any]] = []
    if frame.empty:
        return pd.DataFrame(rows, columns=_COLUMNS)
    kinds = [t for t in QUESTION_TYPES if t in set(frame["type"])]
    kinds += sorted({t for t in frame["type"] if isinstance(t, str)} - set(kinds))
    for metric in IMPLEMENTED:
        if metric not in frame:
            continue
        judged = metric in JUDGED
        judge = _models(frame["judge_model"]) if judged and "judge_model" in frame else None
        embedder = None
        if metric == "answer_correctness" and "embed_model" in frame:
            embedder = _models(frame["embed_model"])
        per_type: dict[str, tuple[float, int]] = {}
        for kind in kinds:
            values = _valid(frame.loc[frame["type"] == kind, metric])
            if not values:
                continue
            ci = bootstrap_ci(values)
            per_type[kind] = (ci.mean, ci.n)
            rows.append(_row(metric, kind, ci, judge, embedder))
        if per_type:
            everything = [
                v for kind in per_type for v in _valid(frame.loc[frame["type"] == kind, metric])
            ]
            ci = bootstrap_ci(everything)
            row = _row(metric, OVERALL, ci, judge, embedder)
            row["mean"] = weighted_overall(per_type)
            rows.append(row)
    return pd.DataFrame(rows, columns=_COLUMNS)


_COLUMNS = ["metric", "type", "n", "mean", "low", "high", "judge_model", "embed_model"]


def _row(metric: str, kind: str, ci: Any, judge: str | None, embedder: str | None) -> dict:
    return {
        "metric": metric,
        "type": kind,
        "n": ci.n,
        "mean": ci.mean,
        "low": ci.low,
        "high": ci.high,
        "judge_model": judge,
        "embed_model": embedder,
    }
