"""What every results table says about a method's contexts and answers, besides its scores.

:data:`CONTEXT_COLUMNS`, per-question means over a method's records:

- ``context_tokens``: size of the final context the answer was generated from;
- ``passage_recall``: share of the supporting passages among the passages rendered in it;
- ``provenance_recall``: share among the source ids of every context item (an entity or a
  summary credits the passage it came from; the ``support_recall`` of older records);
- ``answer_coverage``, ``supporting_fact_recall``, ``context_llm_tokens``: the evidence metrics
  (:mod:`ace_lab.eval.metrics.evidence`): share of questions whose context holds a gold answer,
  share of the question's facts it holds, LLM tokens spent to obtain it;
- ``format_compliance``: share of answers given in the answer prompt's format — a proper
  ``[FINAL_ANSWER]`` tag pair, or the ``answer`` field of the JSON answer prompt's object
  (:func:`~ace_lab.eval.metrics.answer_format`), or for the short reader's records the one
  bounded line its grammar allows (:func:`~ace_lab.methods.reader.short_reply_ok`);
- ``reader`` (:func:`readers`, not a mean): which reader produced the answers
  (:mod:`ace_lab.methods.reader`).

:func:`context_columns` computes them for some records, :func:`with_context` adds them to any
table with a ``method`` column (the ACE ablation table, say). :func:`origin_columns` computes
:data:`ORIGIN_COLUMNS` (where the context came from) for records whose ``stats`` carry them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from ace_lab.eval.metrics import answer_format
from ace_lab.eval.metrics.evidence import EVIDENCE_COLUMNS
from ace_lab.methods.final_answer import extract
from ace_lab.methods.reader import record_reader, short_reply_ok

CONTEXT_COLUMNS = (
    *("context_tokens", "passage_recall", "provenance_recall"),
    *EVIDENCE_COLUMNS,
    "format_compliance",
)
#: Where a context came from, as shares of its item tokens, for methods whose records' ``stats``
#: say so (ArcRAG: model-written Cypher, the neighbourhood-scan template, the retrieved-passage
#: fallback). Per record the three sum to 1, or are all 0 for an empty context, so their means
#: sum to the share of answers that had any context. A table has them only when some record does.
ORIGIN_COLUMNS = ("context_from_model", "context_from_template", "context_from_fallback")
#: The context columns a table shows, those it has, in this order.
CONTEXT_VIEW = (*CONTEXT_COLUMNS, *ORIGIN_COLUMNS)


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


def readers(records: pd.DataFrame) -> str:
    """The readers that produced ``records``' answers (:func:`~ace_lab.methods.reader.
    record_reader`), ``+``-joined in first-seen order; empty when none answered."""
    found = (record_reader(r) for r in records.to_dict("records"))
    return "+".join(dict.fromkeys(r for r in found if r))


def _in_prompt_format(raw: str, reader: object = None) -> bool:
    if reader == "short":  # the grammar-bound reader: the reply is the answer line
        return short_reply_ok(raw)
    return answer_format(raw) == "tag" or extract(raw).source == "json"


def context_columns(records: pd.DataFrame) -> dict[str, float]:
    """:data:`CONTEXT_COLUMNS` of ``records`` (one method's, say), NaN where undefined.

    Recalls and evidence metrics average over the questions that have one (supporting
    passages known, a gold that is not yes/no, facts, token counts); a record with only the old
    ``support_recall`` counts it as provenance recall, one without ``answer_coverage`` its
    ``context_has_answer`` (records not read through ``load_results``, which fills both).
    """
    provenance = _or_older(records, "provenance_recall", "support_recall")
    coverage = _or_older(records, "answer_coverage", "context_has_answer")
    return {
        "context_tokens": mean(records.get("context_tokens")),
        "passage_recall": mean(records.get("passage_recall")),
        "provenance_recall": mean(provenance),
        "answer_coverage": mean(coverage),
        "supporting_fact_recall": mean(records.get("supporting_fact_recall")),
        "context_llm_tokens": mean(records.get("context_llm_tokens")),
        "format_compliance": format_compliance(records),
    }


def _or_older(records: pd.DataFrame, column: str, older: str) -> pd.Series | None:
    """``column`` of ``records``, its missing values taken from the ``older`` column that
    records written before it kept."""
    values = records.get(column)
    if older not in records:
        return values
    return records[older] if values is None else values.where(values.notna(), records[older])


def origin_columns(records: pd.DataFrame) -> dict[str, float]:
    """:data:`ORIGIN_COLUMNS`: means over the ``records`` whose ``stats`` carry them; empty when
    none does (another method's records, or ones written before they were kept)."""
    stats = [s for s in records["stats"] if isinstance(s, Mapping)] if "stats" in records else []
    carrying = [s for s in stats if ORIGIN_COLUMNS[0] in s]
    if not carrying:
        return {}
    return {c: mean(pd.Series([s.get(c) for s in carrying], dtype=float)) for c in ORIGIN_COLUMNS}


def with_context(table: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """``table`` with :data:`CONTEXT_COLUMNS` (replacing any it had) for each row whose
    ``method`` has records in ``df``, over all of that method's records (one per question id,
    the last if repeated); NaN for other rows, such as a control or a difference."""
    values = []
    for method in table["method"]:
        rows = df[df["method"] == method] if "method" in df else df.iloc[:0]
        rows = rows.drop_duplicates("id", keep="last") if "id" in rows else rows
        values.append(context_columns(rows) if len(rows) else dict.fromkeys(CONTEXT_COLUMNS))
    extra = pd.DataFrame(values, index=table.index, columns=list(CONTEXT_COLUMNS), dtype=float)
    return pd.concat([table.drop(columns=list(CONTEXT_COLUMNS), errors="ignore"), extra], axis=1)
