"""Graph-search effort against a reference policy (notebook 05), from evaluation records.

- :func:`effort_table`: paths evaluated and evidence retained per method, and their change
  relative to a reference (Fixed Wide: the paper reports −81.9 % paths, −47.2 % evidence);
- :func:`effort_summary`: that comparison in one line;
- :func:`effort_figure`: the relative changes as bars.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab.mosaic.report.policies import records_of, stats_of
from ace_lab.viz.names import display_name
from ace_lab.viz.sizes import FONT_PT, MIN_FONT_PT, paper_figure, paper_style

#: The reference of :func:`effort_table` (the paper compares with Fixed Wide).
REFERENCE = "mosaic-fixed:wide"
#: Relative columns of :func:`effort_table`: the mean they compare, their name, their label.
RELATIVE = (
    ("paths_evaluated", "paths_vs_ref", "paths evaluated"),
    ("evidence_retained", "evidence_vs_ref", "evidence retained"),
)
#: Characters of a title line (8 pt) in one column.
TITLE_CHARS = 55


def _mean(values: Iterable[Any]) -> float | None:
    numbers = [float(v) for v in values if v is not None]
    return round(sum(numbers) / len(numbers), 3) if numbers else None


def _row(method: str, mine: list[dict[str, Any]]) -> dict[str, Any]:
    stats = [stats_of(r) for r in mine]
    reasons = pd.Series([s.get("stop_reason") for s in stats], dtype=object).value_counts()
    row: dict[str, Any] = {
        "method": method,
        "n": len(mine),
        "paths_evaluated": _mean(s.get("paths_evaluated") for s in stats),
        "evidence_retained": _mean(s.get("evidence_retained") for s in stats),
        "depth_reached": _mean(s.get("depth_reached") for s in stats),
        "connector_share": _mean(bool(s.get("connectors_used")) for s in stats),
        "stop_reason": reasons.index[0] if len(reasons) else None,
    }
    for metric in ("em", "f1"):
        if any(r.get(metric) is not None for r in mine):
            row[metric] = _mean(r.get(metric) for r in mine)
    return row


def effort_table(
    records: Any, methods: Iterable[str] | None = None, reference: str = REFERENCE
) -> pd.DataFrame:
    """Per method, means over the questions every listed method answered: paths evaluated,
    evidence retained, depth reached, the share of questions that kept a connector path, the
    most common stop reason, EM/F1 where recorded, and ``paths_vs_ref`` / ``evidence_vs_ref``:
    the change of the mean relative to ``reference``'s, in percent (−81.9 means 81.9 % fewer).
    The relative columns are empty when ``reference`` is not among the methods."""
    rows = records_of(records)
    wanted = list(dict.fromkeys(methods or [r.get("method") for r in rows]))
    ids: dict[str, set[Any]] = {m: set() for m in wanted}
    for r in rows:
        if r.get("method") in ids and stats_of(r):
            ids[r["method"]].add(r.get("id"))
    common = set.intersection(*ids.values()) if ids else set()
    table = pd.DataFrame(
        [
            _row(m, [r for r in rows if r.get("method") == m and r.get("id") in common])
            for m in wanted
        ]
    )
    if table.empty:
        return table
    ref = table[table["method"] == reference]
    for column, name, _ in RELATIVE:
        base = ref[column].iloc[0] if len(ref) else None
        table[name] = [
            round(100 * (v / base - 1), 1) if base and v is not None else None
            for v in table[column]
        ]
    table.attrs["reference"] = reference
    table.attrs["questions"] = len(common)
    return table.set_index("method")


def effort_summary(table: pd.DataFrame, method: str = "mosaic") -> str:
    """One line: ``method``'s paths and evidence change vs the table's reference, next to the
    paper's −81.9 % / −47.2 % (says what is missing instead when it cannot be computed)."""
    reference = table.attrs.get("reference", REFERENCE)
    if table.empty or method not in table.index or reference not in table.index:
        return f"no {method} vs {reference} comparison: a method has no records"
    row = table.loc[method]
    if row.get("paths_vs_ref") is None or pd.isna(row.get("paths_vs_ref")):
        return f"no {method} vs {reference} comparison: {reference} evaluated no paths"
    return (
        f"{method} vs {reference} on {table.attrs.get('questions', '?')} questions: paths "
        f"{row['paths_vs_ref']:+.1f} %, evidence {row['evidence_vs_ref']:+.1f} % "
        "(paper: -81.9 %, -47.2 %)"
    )


@paper_style()
def effort_figure(table: pd.DataFrame, title: str = "") -> plt.Figure:
    """Horizontal bars per method (display names), one column wide: paths evaluated and
    evidence retained, % vs the reference of :func:`effort_table` (its attrs name it)."""
    reference = display_name(table.attrs.get("reference", "reference"))
    fig, ax = paper_figure(1, 0.45 * max(len(table), 1) + 1.3, layout="constrained")
    if table.empty or "paths_vs_ref" not in table:
        ax.text(0.5, 0.5, "no records", ha="center", va="center", transform=ax.transAxes)
        return fig
    ys = np.arange(len(table))
    for offset, (_, column, label) in zip((-0.2, 0.2), RELATIVE, strict=True):
        values = pd.to_numeric(table[column], errors="coerce").fillna(0.0).to_numpy()
        bars = ax.barh(ys + offset, values, 0.4, label=label)
        ax.bar_label(bars, fmt="%+.1f", padding=2, fontsize=MIN_FONT_PT)  # the axis says %
    ax.set_yticks(ys, [display_name(m) for m in table.index])
    ax.axvline(0, color="#444444", lw=0.8)
    ax.invert_yaxis()
    ax.set_xlabel("change of the mean per question (%)", loc="right")  # wider than the axes
    ax.use_sticky_edges = False  # bars stick to 0: the margin goes beyond it too
    ax.margins(x=0.35)  # room for the bar labels beyond the bars' ends
    # under the axes: inside, it would sit on the reference's "+0.0 %" labels
    fig.legend(frameon=False, loc="outside lower center", ncols=len(RELATIVE))
    questions = table.attrs.get("questions", "?")
    heading = title or f"Graph-search effort relative to {reference}\n({questions} questions)"
    lines = (textwrap.wrap(line, TITLE_CHARS) for line in heading.splitlines())
    fig.suptitle("\n".join(part for line in lines for part in line), fontsize=FONT_PT)
    return fig
