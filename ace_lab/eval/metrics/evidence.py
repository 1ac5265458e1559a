"""Evidence metrics: what a context holds, measured from the context alone (no reader, no judge).

The columns :data:`EVIDENCE_COLUMNS` of every record (``docs/evaluation.md``, "Evidence metrics"):

- ``answer_coverage`` (:func:`answer_coverage`): a normalised gold answer or alias occurs in the
  context's item texts as whole normalised words; None for yes/no questions and without gold;
- ``supporting_fact_recall`` (:func:`~ace_lab.eval.metrics.facts.supporting_fact_recall`): the
  share of the question's facts (HotpotQA supporting sentences, 2Wiki evidence triples, MuSiQue
  decomposition hops) found in the context; None where the data set has no facts;
- ``context_llm_tokens`` (:func:`context_llm_tokens`): the LLM tokens a method spent to obtain
  its context, every step's but the final answer call's; None where step rows lack token counts.

Matching is :func:`~ace_lab.eval.metrics.answers.answer_in_context`'s: SQuAD-normalised text
padded with spaces, so "art" is not found in "party" nor "1942" in "19423". The context text is
its items' texts joined by newlines (a record's ``context_texts``), without the rendered block
headers (``### round 1 · depth · entity``), whose words and round numbers would otherwise match
a gold such as "1". :func:`stored_coverage`, :func:`stored_fact_recall` and
:func:`stored_llm_tokens` compute them for one record (what the rows of the metrics table,
:mod:`ace_lab.eval.metrics.table`, call when a record is written and when an older one is read
back), :func:`evidence_of` all three; :func:`recovery` aggregates ACE's recovery over a
method's records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ace_lab.data import Question
from ace_lab.eval.metrics.answers import answer_in_context, coverage_and_recovery, is_yes_no
from ace_lab.eval.metrics.facts import question_facts, supporting_fact_recall

#: The record columns this module computes, in the order tables show them.
EVIDENCE_COLUMNS = ("answer_coverage", "supporting_fact_recall", "context_llm_tokens")


def context_text(texts: Iterable[str]) -> str:
    """The text the evidence metrics read: the context's item texts, one per line."""
    return "\n".join(str(t) for t in texts)


# ------------------------------------------------------------------------------- coverage
def answer_coverage(text: str, golds: Sequence[str]) -> bool | None:
    """Whether a gold answer or alias occurs in ``text`` as whole normalised words; None for a
    yes/no question and a question without gold (there is no answer span to find)."""
    golds = [g for g in golds if g]
    if not golds or is_yes_no(golds):
        return None
    return answer_in_context(text, golds)


# ---------------------------------------------------------------------------------- tokens
def context_llm_tokens(steps: Any, evidence_only: bool = False) -> int | None:
    """LLM tokens spent to obtain the context: ``prompt_tokens + completion_tokens`` of every
    step row but the final answer call (the last step whose name starts with ``generate``;
    an evidence-only record has none, so every step counts). A step without token counts
    counts 0 when it made no LLM call; None when a counted step made calls but kept no
    counts (records written before step tokens), when there are no step rows, or when an
    answered record has no ``generate`` step to leave out."""
    if not isinstance(steps, list | tuple) or not steps:
        return None
    rows = [s if isinstance(s, Mapping) else {} for s in steps]
    if not evidence_only:
        names = [str(r.get("name") or "") for r in rows]
        answer = max((i for i, n in enumerate(names) if n.startswith("generate")), default=None)
        if answer is None:
            return None
        rows = rows[:answer] + rows[answer + 1 :]
    total = 0
    for row in rows:
        prompt, completion = row.get("prompt_tokens"), row.get("completion_tokens")
        if isinstance(prompt, int | float) and isinstance(completion, int | float):
            total += int(prompt) + int(completion)
        elif row.get("llm_calls") != 0:
            return None
    return total


# -------------------------------------------------------------------------------- recovery
def recovery_values(records: pd.DataFrame) -> pd.Series:
    """Per question whose first retrieval (``base_has_answer``, ACE's C_base) lacks the gold
    answer: 1.0 when the final context has it (``context_has_answer``), else 0.0; indexed by
    question id. Empty for a method without a refinement stage (``base_has_answer`` None)."""
    if "base_has_answer" not in records or "context_has_answer" not in records:
        return pd.Series(dtype=float)
    rows = records[records["base_has_answer"].notna() & records["context_has_answer"].notna()]
    rows = rows[~rows["base_has_answer"].astype(bool)]
    values = rows["context_has_answer"].astype(bool).astype(float)
    return values.set_axis(rows["id"]) if "id" in rows else values


def recovery(records: pd.DataFrame) -> dict[str, float | int | None]:
    """ACE-GraphRAG Table 5 over one method's ``records`` (questions with both coverages):
    ``n``, ``coverage_initial``, ``coverage_final``, ``n_uncovered`` (base lacks the answer),
    ``recovered`` (of those, the final context has it) and ``recovery`` = recovered /
    n_uncovered (None when nothing was uncovered, or without a refinement stage)."""
    if "base_has_answer" in records and "context_has_answer" in records:
        rows = records[records["base_has_answer"].notna() & records["context_has_answer"].notna()]
        initial = [bool(v) for v in rows["base_has_answer"]]
        final = [bool(v) for v in rows["context_has_answer"]]
    else:
        initial, final = [], []
    result = coverage_and_recovery(initial, final)
    return {**result, "recovered": int(recovery_values(records).sum())}


def recovery_by_method(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`recovery` per method of a results frame, one row each, in first-seen order."""
    rows = [
        {"method": method, **recovery(group)}
        for method, group in frame.groupby("method", sort=False)
    ]
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------- records
def _passage_text(passage: Any) -> str:
    """A passage's text as a context item shows it (``RetrievalGraph.passage_evidence``)."""
    title = getattr(passage, "title", "")
    return f"{title}: {passage.text}" if title else str(passage.text)


def _stored_text(rec: Mapping[str, Any], passages: Mapping[str, Any]) -> str | None:
    """The record's context text: its ``context_texts``; for a record without them whose
    context holds whole passages only, those passages' texts rebuilt from the slice (exact:
    a passage item's text is ``title: text``); else None (other items' texts are lost)."""
    texts, ids = rec.get("context_texts"), rec.get("context_ids")
    if isinstance(texts, list | tuple) and (texts or not ids):
        return context_text(texts)
    if isinstance(ids, list | tuple) and all(i in passages for i in ids):
        return context_text(_passage_text(passages[i]) for i in ids)
    return None


def _listed(value: Any, default: Sequence[str] = ()) -> list[str]:
    """A record field that holds a list, else ``default`` (a frame's missing value is NaN)."""
    return list(value) if isinstance(value, list | tuple) else list(default)


def stored_coverage(
    rec: Mapping[str, Any], question: Question | None, passages: Mapping[str, Any]
) -> bool | None:
    """``answer_coverage`` of one record: :func:`answer_coverage` on its context text
    (:func:`_stored_text`; golds are the record's, else its ``question``'s); without a context
    text the record's ``context_has_answer`` (the same check on the rendered context, block
    headers included)."""
    text = _stored_text(rec, passages)
    if text is None:
        stored = rec.get("context_has_answer")
        return None if stored is None or pd.isna(stored) else bool(stored)
    return answer_coverage(
        text, _listed(rec.get("gold"), question.answers if question is not None else ())
    )


def stored_fact_recall(
    rec: Mapping[str, Any], question: Question | None, passages: Mapping[str, Any]
) -> float | None:
    """``supporting_fact_recall`` of one record: the ``question``'s facts (its ``extra``, the
    record's supporting ids, else the question's) found in the record's context text; None
    without a context text or without ``question`` (one not in the slice)."""
    text = _stored_text(rec, passages)
    if text is None or question is None:
        return None
    supporting = _listed(rec.get("supporting_ids"), question.supporting_ids)
    facts = question_facts(question.extra, supporting, passages)
    return supporting_fact_recall(facts, text, _listed(rec.get("context_ids")))


def stored_llm_tokens(rec: Mapping[str, Any]) -> int | None:
    """``context_llm_tokens`` of one record, from its step rows (:func:`context_llm_tokens`)."""
    return context_llm_tokens(rec.get("steps"), bool(rec.get("evidence_only") is True))


def evidence_of(
    rec: Mapping[str, Any], question: Question | None, passages: Mapping[str, Any]
) -> dict[str, Any]:
    """:data:`EVIDENCE_COLUMNS` of one record (the fields :func:`ace_lab.eval.studies.record.
    record` writes), with its ``question`` (its ``extra``; its answers and supporting ids where
    the record has none) and the slice's ``passages`` (id → an object with ``title`` and
    ``text``; the supporting ones suffice): :func:`stored_coverage`,
    :func:`stored_fact_recall`, :func:`stored_llm_tokens`, the functions the rows of the
    metrics table (:mod:`ace_lab.eval.metrics.table`) call one by one.

    Without a context text (:func:`_stored_text`), coverage is the record's
    ``context_has_answer`` (the same check on the rendered context, block headers included)
    and supporting-fact recall is None; without ``question`` (one not in the slice) the
    recall is None too.
    """
    return {
        "answer_coverage": stored_coverage(rec, question, passages),
        "supporting_fact_recall": stored_fact_recall(rec, question, passages),
        "context_llm_tokens": stored_llm_tokens(rec),
    }
