"""What every results table says about a method's contexts and answers, besides its scores.

:data:`CONTEXT_COLUMNS`, per-question means over a method's records, are the rows of the
metrics table that are not answer scores (:func:`~ace_lab.eval.metrics.table.context_metrics`,
whose ``help`` says what each means): context size, the two recalls, the evidence metrics
(:mod:`ace_lab.eval.metrics.evidence`), the LLM tokens spent on the context and format
compliance. Besides them ``reader`` (:func:`readers`, not a mean) says which reader produced the
answers (:mod:`ace_lab.methods.reader`).

:func:`context_columns` computes them for some records, :func:`with_context` adds them to any
table with a ``method`` column (the ACE ablation table, say). :func:`origin_columns` computes
:data:`ORIGIN_COLUMNS` (where the context came from) for records whose ``stats`` carry them.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ace_lab.eval.metrics.table import context_metrics
from ace_lab.eval.metrics.table import format_compliance as format_compliance  # re-exported
from ace_lab.eval.metrics.table import mean as mean  # re-exported: every table's mean
from ace_lab.methods.reader import record_reader

#: The context columns of the metrics table (:mod:`ace_lab.eval.metrics.table`), in its order.
CONTEXT_COLUMNS = tuple(m.name for m in context_metrics())
#: Where a context came from, as shares of its item tokens, for methods whose records' ``stats``
#: say so (ArcRAG: model-written Cypher, the neighbourhood-scan template, the retrieved-passage
#: fallback). Per record the three sum to 1, or are all 0 for an empty context, so their means
#: sum to the share of answers that had any context. A table has them only when some record does.
#: They are ArcRAG's, not rows of the metrics table: they stay here until a method can declare
#: the columns it adds to tables.
ORIGIN_COLUMNS = ("context_from_model", "context_from_template", "context_from_fallback")
#: The context columns a table shows, those it has, in this order.
CONTEXT_VIEW = (*CONTEXT_COLUMNS, *ORIGIN_COLUMNS)


def readers(records: pd.DataFrame) -> str:
    """The readers that produced ``records``' answers (:func:`~ace_lab.methods.reader.
    record_reader`), ``+``-joined in first-seen order; empty when none answered."""
    found = (record_reader(r) for r in records.to_dict("records"))
    return "+".join(dict.fromkeys(r for r in found if r))


def context_columns(records: pd.DataFrame) -> dict[str, float]:
    """The context columns of ``records`` (one method's, say): each context row of the metrics
    table's :meth:`~ace_lab.eval.metrics.table.Metric.summary`, NaN where undefined.

    Recalls and evidence metrics average over the questions that have one (supporting
    passages known, a gold that is not yes/no, facts, token counts); a record with only the old
    ``support_recall`` counts it as provenance recall, one without ``answer_coverage`` its
    ``context_has_answer`` (a row's ``older`` column: records not read through
    ``load_results``, which fills both).
    """
    return {metric.name: metric.summary(records) for metric in context_metrics()}


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
    columns = [metric.name for metric in context_metrics()]
    values = []
    for method in table["method"]:
        rows = df[df["method"] == method] if "method" in df else df.iloc[:0]
        rows = rows.drop_duplicates("id", keep="last") if "id" in rows else rows
        values.append(context_columns(rows) if len(rows) else dict.fromkeys(columns))
    extra = pd.DataFrame(values, index=table.index, columns=columns, dtype=float)
    return pd.concat([table.drop(columns=columns, errors="ignore"), extra], axis=1)
