"""GraphRAG-Bench's figure: one metric per method and question type, with intervals.

:func:`grb_figure` draws a :func:`~ace_lab.eval.graphragbench.store.grb_table` as grouped bars —
one group per question type (the benchmark's order, then our overall, weighted by query count),
one bar per method — with the 95 % bootstrap interval as an error bar and each type's ``n``
(questions scored, a range when methods differ) under its name, so a type answered by one
question cannot pass for a measured difference. The judge and embedder are in the title. The
figure is two columns wide; methods keep their colours (``viz.palette.method_colours``, distinct
for up to twenty) and show display names in a legend below the axes, clear of the tick labels.
Without scores it draws a placeholder naming the command.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab.data.graphragbench import QUESTION_TYPES
from ace_lab.eval.graphragbench.scoring import OVERALL
from ace_lab.eval.reporting.report import placeholder
from ace_lab.viz.names import dataset_name, display_name
from ace_lab.viz.palette import method_colours
from ace_lab.viz.sizes import paper_figure, paper_style

#: Axis labels of the metrics (the benchmark's names).
METRIC_LABELS = {
    "answer_correctness": "Answer Correctness (ACC)",
    "rouge_score": "ROUGE-L",
    "coverage_score": "Coverage",
    "faithfulness": "Faithfulness",
    "evidence_recall": "Evidence Recall",
    "context_relevancy": "Context Relevancy",
}


def _types(part: pd.DataFrame) -> list[str]:
    present = set(part["type"])
    return [t for t in (*QUESTION_TYPES, OVERALL) if t in present]


def _tick(kind: str, counts: Sequence[int]) -> str:
    """An axis label: the type (our overall row's long name on two lines) and its ``n``."""
    low, high = min(counts), max(counts)
    n = f"n = {low}" if low == high else f"n = {low}–{high}"
    name = "Overall (query-\nweighted, not official)" if kind == OVERALL else kind
    return f"{name}\n{n}"


@paper_style()
def grb_figure(
    table: pd.DataFrame,
    metric: str = "answer_correctness",
    methods: Sequence[str] | None = None,
    title: str = "",
    command: str = "ace-lab grb-score --study <study>",
) -> plt.Figure:
    """Grouped bars of ``metric`` from a :func:`grb_table` (``methods`` in their order; default:
    the table's), error bars from ``low``/``high``, each type's ``n`` under its name;
    ``title`` is a data set or slice id (shown by its display name) or any text."""
    part = table[table["metric"] == metric] if not table.empty else table
    if methods is not None and not part.empty:
        part = part[part["method"].isin(list(methods))]
    fig, ax = paper_figure(2, 3.6, layout="constrained")
    label = METRIC_LABELS.get(metric, metric)
    if part.empty:
        placeholder(ax, f"no {label} scores yet\n{command}")
        return fig
    order = list(methods) if methods is not None else list(dict.fromkeys(part["method"]))
    order = [m for m in order if m in set(part["method"])]
    types = _types(part)
    width = 0.8 / len(order)
    xs = np.arange(len(types))
    cells = part.set_index(["method", "type"])
    colours = method_colours(order)
    for i, method in enumerate(order):
        pos = xs - 0.4 + width * (i + 0.5)
        rows = [cells.loc[(method, t)] if (method, t) in cells.index else None for t in types]
        mean = np.array([np.nan if r is None else r["mean"] for r in rows], dtype=float)
        low = np.array([np.nan if r is None else r["low"] for r in rows], dtype=float)
        high = np.array([np.nan if r is None else r["high"] for r in rows], dtype=float)
        err = np.vstack([np.clip(mean - low, 0, None), np.clip(high - mean, 0, None)])
        ax.bar(
            pos,
            mean,
            width,
            yerr=err,
            error_kw={"elinewidth": 0.6, "capsize": 1},
            label=display_name(method),
            color=colours[method],
        )
    counts = [[int(n) for n in part.loc[part["type"] == t, "n"]] for t in types]
    ax.set_xticks(xs, [_tick(t, n) for t, n in zip(types, counts, strict=True)])
    ax.set_ylim(0, 1)
    ax.set_ylabel(label)
    judge = ", ".join(sorted({str(j) for j in part["judge_model"].dropna()})) or "no judge"
    embedder = ", ".join(sorted({str(e) for e in part["embed_model"].dropna()}))
    models = f"judge {judge}" + (f", embedder {embedder}" if embedder else "")
    name = f"{dataset_name(title)} · " if title else ""
    ax.set_title(f"{name}{label}, mean [95 % CI]\n({models})")
    # below the axes: bars near 1.0 (summaries) would sit under a legend inside them
    fig.legend(loc="outside lower center", ncols=min(len(order), 3), frameon=False)
    return fig
