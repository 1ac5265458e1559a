"""GraphRAG-Bench tables as a reader sees them: every metric of a question type side by side,
and one method's Answer Correctness against a reference pooled over the slices both ran.

:func:`type_view` turns a :func:`~ace_lab.eval.graphragbench.store.grb_table` into one table per
question type (and one for the overall, :data:`~ace_lab.eval.graphragbench.scoring.OVERALL`):
a row per method, a column per metric the benchmark gives that type — ACC, ROUGE-L, Coverage,
Faithfulness, Context Relevancy, Evidence Recall — each cell ``mean [95% CI]`` or why it is
missing. ACC's header names the embedder of its similarity term (``ACC (sim: <model>)``); each
judged metric's header carries its judge's calibration accuracy and, below the threshold, the
``judge uninformative`` mark (:mod:`ace_lab.eval.graphragbench.cells`).

:func:`grb_pooled` compares each method's per-question scores with a reference's on every
slice both ran, stratified by slice (:func:`ace_lab.eval.reporting.pooled.pooled_tests`: pooled
difference, stratified-bootstrap interval, sign-flip p, Holm over the rows, the minimal
detectable difference and the questions a slice would need for +0.05).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ace_lab.data.graphragbench import QUESTION_TYPES
from ace_lab.eval.graphragbench.scoring import IMPLEMENTED, OVERALL, metrics_for
from ace_lab.eval.reporting.pooled import pooled_tests, power_summary

#: Column names of the metrics (the benchmark's names).
METRIC_NAMES = {
    "answer_correctness": "ACC",
    "rouge_score": "ROUGE-L",
    "coverage_score": "Coverage",
    "faithfulness": "Faithfulness",
    "context_relevancy": "Context Relevancy",
    "evidence_recall": "Evidence Recall",
}
#: The order of a type table's columns.
VIEW_ORDER = (
    "answer_correctness",
    "rouge_score",
    "coverage_score",
    "faithfulness",
    "context_relevancy",
    "evidence_recall",
)
#: Columns :func:`grb_pooled` tables show.
POOLED_VIEW = [
    *("method", "baseline", "slices", "n", "diff [95% CI]", "p_permutation", "p_holm"),
    *("mde", "mde_per_slice", "n_for_+0.05"),
]


def embedder_name(model: str | None) -> str:
    """The short name of an embedder id (``st:all-MiniLM-L6-v2`` → ``all-MiniLM-L6-v2``)."""
    if not model:
        return "none"
    return ", ".join(m.strip().split(":", 1)[-1] for m in str(model).split(","))


def header(metric: str, part: pd.DataFrame) -> str:
    """A type table's column name for ``metric``: ACC names its similarity embedder; a judged
    metric its judge's calibration (``part``: the metric's rows of the long table)."""
    name = METRIC_NAMES[metric]
    if metric == "answer_correctness":
        models = sorted({embedder_name(e) for e in part["embed_model"].dropna()})
        name += f" (sim: {', '.join(models) or 'none'})"
    calibration = next((c for c in part["judge_calibration"] if isinstance(c, str) and c), "")
    return f"{name} [{calibration}]" if calibration else name


def type_view(table: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Methods × the metrics of question type ``kind`` (or :data:`OVERALL`: every metric) of a
    long :func:`grb_table`; empty when the table has no row of that type."""
    part = table[table["type"] == kind]
    if part.empty:
        return pd.DataFrame()
    wanted = set(IMPLEMENTED) if kind == OVERALL else set(metrics_for(kind))
    methods = list(dict.fromkeys(part["method"]))
    out = pd.DataFrame({"method": methods})
    for metric in [m for m in VIEW_ORDER if m in wanted]:
        rows = part[part["metric"] == metric]
        if rows.empty:
            continue
        cells = rows.set_index("method")["mean [95% CI]"]
        counts = rows.set_index("method")["n"]
        out[header(metric, rows)] = [_cell(cells.get(m), counts.get(m)) for m in methods]
    return out


def _cell(text: object, n: object) -> str:
    if not isinstance(text, str) or not text:
        return "missing: no answer of this type"
    return text if text.startswith("missing") else f"{text} n={int(n)}"  # type: ignore[call-overload]


def type_views(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """:func:`type_view` for every question type in the benchmark's order, then the overall."""
    kinds = [*QUESTION_TYPES, OVERALL]
    views = {kind: type_view(table, kind) for kind in kinds}
    return {kind: view for kind, view in views.items() if not view.empty}


def grb_pooled(
    joined: Mapping[str, pd.DataFrame],
    baseline: str,
    methods: Sequence[str],
    metric: str = "answer_correctness",
) -> pd.DataFrame:
    """Each of ``methods`` against ``baseline`` on ``metric``, pooled over the slices of
    ``joined`` (slice label → the stored scores of the current answers, one row per method and
    question, as :func:`~ace_lab.eval.graphragbench.store.current_scores` joins them)."""
    frames = {
        label: frame.dropna(subset=[metric])[["method", "id", metric]]
        for label, frame in joined.items()
        if not frame.empty and metric in frame
    }
    table = pooled_tests(frames, baseline, list(methods), metric=metric)
    if not table.empty:
        table.insert(2, "metric", metric)
    return table


def pooled_summary(pooled: pd.DataFrame, metric: str = "ACC") -> str:
    """One line under the pooled table: the detectable difference at each pair's smallest slice
    and the questions a slice needs for +0.05 (empty for an empty table)."""
    return power_summary(pooled, metric)
