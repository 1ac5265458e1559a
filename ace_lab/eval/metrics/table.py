"""The table of metrics: one :class:`Metric` row per record column that scores an answer or a
context, in the order tables show them (:data:`METRICS`).

A row says everything the suite needs to know about a metric: its record column (``name``), what
tables and the documentation call it (``label``), how one record gets its value (``of``, a
function of :class:`RecordInput`), how a method's records become one number (``aggregate``, by
default the mean of the column), whether that value comes from an LLM judge (``needs_judge``),
how tables show it (``kind``) and what it means (``help``). Whatever writes, completes, rescores
or tabulates records iterates over the table instead of naming metrics:
:func:`~ace_lab.eval.studies.record.record` writes :func:`record_columns`,
:func:`~ace_lab.eval.studies.record.with_metrics` completes records read back without a column,
:func:`~ace_lab.eval.studies.study.rescore` and :mod:`~ace_lab.eval.studies.reread` recompute
:func:`answer_scores`, :func:`~ace_lab.eval.metrics.context_stats.context_columns` and
:func:`~ace_lab.eval.reporting.tables.main_table` show every row. A new metric is therefore its
per-record function and its row here. The functions themselves live with their kin
(:mod:`~ace_lab.eval.metrics.answers`, :mod:`~ace_lab.eval.metrics.evidence`); the adapters below
only say which record fields they read.

Readers of the table call :func:`answer_metrics` and :func:`context_metrics` when they run, so
a row added at run time (a test's) reaches them; :data:`~ace_lab.eval.metrics.context_stats.
CONTEXT_COLUMNS` and the tables' views are the rows as imported.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ace_lab.data import Question
from ace_lab.eval.metrics.answers import (
    answer_format,
    exact_match,
    f1_score,
    passage_recall,
    provenance_recall,
)
from ace_lab.eval.metrics.evidence import stored_coverage, stored_fact_recall, stored_llm_tokens
from ace_lab.evidence import Answer
from ace_lab.methods.final_answer import extract
from ace_lab.methods.reader import short_reply_ok

#: How a table shows a metric, by ``kind``.
KINDS = {
    "answer": "a score of the answer: shown with its 95% interval, recomputed when the answer is "
    "extracted again or reread",
    "context": "a per-question mean among the context columns of every table",
    "cost": "what the context cost (its size, the LLM tokens spent on it): a mean among the "
    "context columns",
}


@dataclass(frozen=True)
class RecordInput:
    """What a per-record metric reads: the ``record``'s fields (those written so far while it is
    written, or a stored record's), its ``question`` and the slice's ``passages`` where known,
    and the live ``answer`` while the record is written (None for a stored record, whose items
    kept only their ids and texts)."""

    record: Mapping[str, Any]
    question: Question | None = None
    passages: Mapping[str, Any] = field(default_factory=dict)
    answer: Answer | None = None


@dataclass(frozen=True)
class Metric:
    """One row of the table (see the module docstring).

    ``of``: the value of one record; None for a metric only its ``aggregate`` computes, from
    several record fields (format compliance reads each reply and its reader). ``stored``:
    ``of`` can compute it for a stored record, so records read back without the column get it
    (:func:`~ace_lab.eval.studies.record.with_metrics`). ``older``: the column records written
    before this one kept it in (their value is the metric's where the column is missing).
    ``boolean``: the values are true / false (None where undefined), kept as they are; a mean
    counts true as 1. ``needs_judge``: the value comes from an LLM judge, stored apart
    (:mod:`ace_lab.eval.judging`), so writing, completing and rescoring records leave it alone.
    """

    name: str
    label: str
    kind: str
    help: str
    of: Callable[[RecordInput], Any] | None = None
    aggregate: Callable[[pd.DataFrame], float] | None = None
    stored: bool = False
    older: str | None = None
    boolean: bool = False
    needs_judge: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"metric {self.name!r}: kind {self.kind!r} is not one of {[*KINDS]}")
        if self.of is None and (self.stored or self.aggregate is None):
            raise ValueError(f"metric {self.name!r} has no per-record function")

    def value(self, inputs: RecordInput) -> Any:
        """The value of one record (None for a row without a per-record function)."""
        return None if self.of is None else self.of(inputs)

    def values(self, records: pd.DataFrame) -> pd.Series | None:
        """The column of ``records``, its missing values taken from the ``older`` column that
        records written before it kept; None when neither is there."""
        values = records.get(self.name)
        if self.older is None or self.older not in records:
            return values
        older = records[self.older]
        return older if values is None else values.where(values.notna(), older)

    def summary(self, records: pd.DataFrame) -> float:
        """One number for ``records`` (one method's, say): ``aggregate``, or the mean of
        :meth:`values`; NaN where undefined."""
        if self.aggregate is not None:
            return self.aggregate(records)
        return mean(self.values(records))


# --------------------------------------------------------------------------- aggregates
def mean(values: pd.Series | None) -> float:
    """Mean of the numeric values (NaN when there are none)."""
    if values is None:
        return math.nan
    values = pd.to_numeric(values, errors="coerce").dropna()
    return float(values.mean()) if len(values) else math.nan


def format_compliance(records: pd.DataFrame) -> float:
    """Share of QA answers (a gold answer and a raw reply) given in the prompt's format (the tag
    pair or the JSON object); NaN without any (a summary has no answer tag)."""
    if "raw" not in records or "gold" not in records:
        return math.nan
    readers = records["reader"] if "reader" in records else [None] * len(records)
    replies = [
        (raw, reader)
        for raw, gold, reader in zip(records["raw"], records["gold"], readers, strict=True)
        if isinstance(raw, str) and isinstance(gold, list | tuple) and gold
    ]
    if not replies:
        return math.nan
    return sum(_in_prompt_format(raw, reader) for raw, reader in replies) / len(replies)


def _in_prompt_format(raw: str, reader: object = None) -> bool:
    if reader == "short":  # the grammar-bound reader: the reply is the answer line
        return short_reply_ok(raw)
    return answer_format(raw) == "tag" or extract(raw).source == "json"


# --------------------------------------------------------------------- per-record adapters
def _golds(rec: Mapping[str, Any]) -> list[str]:
    gold = rec.get("gold")
    return [g for g in gold if isinstance(g, str)] if isinstance(gold, list | tuple) else []


def _answer_score(score: Callable[[str, list[str]], float]) -> Callable[[RecordInput], Any]:
    """A score of the record's ``answer`` against its ``gold``; None without gold or without an
    answer (an evidence-only record), so a mean never counts it as a zero."""

    def of(inputs: RecordInput) -> float | None:
        rec, golds = inputs.record, _golds(inputs.record)
        if not golds or rec.get("evidence_only") is True or rec.get("answer") is None:
            return None
        return score(rec["answer"], golds)

    return of


def _supporting_ids(inputs: RecordInput) -> list[str] | None:
    ids = inputs.record.get("supporting_ids")
    if isinstance(ids, list | tuple):
        return list(ids)
    return None if inputs.question is None else list(inputs.question.supporting_ids)


def _passage_recall(inputs: RecordInput) -> float | None:
    """Live: the ids of the context's ``passage`` items. Stored: its ``context_ids`` (a
    passage's evidence id is its chunk id, every other one has a kind prefix, so only passages
    can match); None without them or without supporting passages."""
    supporting = _supporting_ids(inputs)
    if inputs.answer is not None:
        evidence = inputs.answer.context.evidence
        return passage_recall([e.id for e in evidence if e.kind == "passage"], supporting or ())
    context = inputs.record.get("context_ids")
    if supporting is None or not isinstance(context, list | tuple):
        return None
    return passage_recall(context, supporting)


def _provenance_recall(inputs: RecordInput) -> float | None:
    """The source ids of every context item: only the live answer has them."""
    if inputs.answer is None:
        return None
    source_ids = [sid for e in inputs.answer.context.evidence for sid in e.source_ids]
    return provenance_recall(source_ids, _supporting_ids(inputs) or ())


def _context_tokens(inputs: RecordInput) -> int | None:
    return None if inputs.answer is None else inputs.answer.context.tokens


# ----------------------------------------------------------------------------- the table
def _rows(*rows: Metric) -> dict[str, Metric]:
    return {row.name: row for row in rows}


#: The metrics, in table order: answer scores first, then the context columns.
METRICS: dict[str, Metric] = _rows(
    Metric(
        "em",
        "EM",
        "answer",
        "exact match: 1 when the SQuAD-normalised answer equals a normalised gold alias",
        of=_answer_score(exact_match),
    ),
    Metric(
        "f1",
        "F1",
        "answer",
        "SQuAD token F1 against the best gold alias (yes / no / noanswer only match exactly)",
        of=_answer_score(f1_score),
    ),
    Metric(
        "context_tokens",
        "context tokens",
        "cost",
        "size of the final context the answer was generated from, in tokens",
        of=_context_tokens,
    ),
    Metric(
        "passage_recall",
        "passage recall",
        "context",
        "share of the supporting passages among the passages rendered in the final context",
        of=_passage_recall,
        stored=True,
    ),
    Metric(
        "provenance_recall",
        "provenance recall",
        "context",
        "share of the supporting passages among the source ids of every context item (an entity "
        "or a summary credits the passage it came from)",
        of=_provenance_recall,
        older="support_recall",
    ),
    Metric(
        "answer_coverage",
        "answer coverage",
        "context",
        "a gold answer or alias occurs in the context's item texts as whole normalised words "
        "(None for yes/no questions and without gold)",
        of=lambda x: stored_coverage(x.record, x.question, x.passages),
        stored=True,
        older="context_has_answer",
        boolean=True,
    ),
    Metric(
        "supporting_fact_recall",
        "supporting-fact recall",
        "context",
        "share of the question's facts (supporting sentences, evidence triples, hops) found in "
        "the context",
        of=lambda x: stored_fact_recall(x.record, x.question, x.passages),
        stored=True,
    ),
    Metric(
        "context_llm_tokens",
        "LLM tokens for the context",
        "cost",
        "LLM tokens a method spent to obtain its context: every step's but the answer call's",
        of=lambda x: stored_llm_tokens(x.record),
        stored=True,
    ),
    Metric(
        "format_compliance",
        "format compliance",
        "context",
        "share of answers given in the answer prompt's format (the [FINAL_ANSWER] tag pair, the "
        "JSON object, the short reader's one bounded line)",
        aggregate=format_compliance,
    ),
)


def answer_metrics() -> tuple[Metric, ...]:
    """The rows of kind ``answer`` (scores shown with an interval), in table order."""
    return tuple(m for m in METRICS.values() if m.kind == "answer")


def context_metrics() -> tuple[Metric, ...]:
    """Every other row (the context columns), in table order."""
    return tuple(m for m in METRICS.values() if m.kind != "answer")


def record_columns(inputs: RecordInput) -> dict[str, Any]:
    """Every per-record metric of a record being written (judged ones aside), in table order."""
    return {m.name: m.value(inputs) for m in METRICS.values() if m.of and not m.needs_judge}


def answer_scores(record: Mapping[str, Any]) -> dict[str, Any]:
    """The answer metrics (judged ones aside) of a stored ``record`` whose ``answer`` changed
    (extracted again from its reply, or read again from its context)."""
    inputs = RecordInput(record)
    return {m.name: m.value(inputs) for m in answer_metrics() if m.of and not m.needs_judge}
