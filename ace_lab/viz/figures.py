"""Saving matplotlib figures reproducibly, the data-set overview plots (notebook 00) and the
per-stage cost plot (notebook 03).

``save_figure`` is the one place a figure is written: PNG and PDF by default, with no creation
date or software version in their metadata (``SOURCE_DATE_EPOCH`` included) and a fixed SVG
hash salt, so saving an unchanged figure again, in any process, gives the same bytes and
rerunning the notebooks leaves git clean. The pixels and font subsets themselves come from the
locked matplotlib, Pillow and matplotlib's bundled DejaVu fonts. A committed figure plots only
what every machine computes alike: counts and tokens, never measured seconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab.viz.names import dataset_name
from ace_lab.viz.sizes import SINGLE_COLUMN, paper_figure, paper_style

#: The least PNG resolution of a single-column figure (3.3 in: about 1,000 pixels wide).
COLUMN_DPI = 300
#: Metadata per format that would otherwise change on every save (dates, versions).
_METADATA: dict[str, dict[str, Any]] = {
    "png": {"Software": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None},
    "svg": {"Date": None, "Creator": None},
}


def save_figure(
    fig: plt.Figure,
    name: str | Path,
    figures_dir: Path | str | None = None,
    formats: Sequence[str] = ("png", "pdf"),
    dpi: int = 150,
) -> list[Path]:
    """Write ``fig`` to ``figures_dir/name.<format>`` (or ``name`` as a path stem when no
    ``figures_dir`` is given) for each format; return the paths.

    PNGs are rendered at ``dpi``, a single-column figure's (``viz.sizes``) at no less than
    :data:`COLUMN_DPI`, so it is as sharp as a double-column one when printed at its size;
    vector formats keep the figure's own dpi. Byte-identical for an unchanged figure: no dates
    or versions in the metadata, SVG ids from a fixed salt.
    """
    if fig.get_size_inches()[0] <= SINGLE_COLUMN + 1e-6:
        dpi = max(dpi, COLUMN_DPI)
    stem = Path(figures_dir) / name if figures_dir is not None else Path(name)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    with mpl.rc_context({"svg.hashsalt": "ace_lab"}):
        for fmt in formats:
            path = stem.parent / f"{stem.name}.{fmt}"
            extra: dict[str, Any] = {"dpi": dpi} if fmt == "png" else {}
            fig.savefig(path, format=fmt, bbox_inches="tight", metadata=_METADATA.get(fmt), **extra)
            paths.append(path)
    return paths


@paper_style()
def plot_question_types(type_counts: Mapping[str, pd.Series]) -> plt.Figure:
    """Horizontal stacked bars: questions per data set (display names), split by question
    type; two columns wide."""
    table = pd.DataFrame({name: counts for name, counts in type_counts.items()}).T.fillna(0)
    table = table.loc[table.sum(axis=1).sort_values().index]
    table.index = [dataset_name(name) for name in table.index]
    fig, ax = paper_figure(2, 0.28 * len(table) + 1.0)
    # tab20 + tab20b: 40 distinct colours, so no two question types share one
    colours = [*plt.cm.tab20.colors, *plt.cm.tab20b.colors]
    table.plot.barh(stacked=True, ax=ax, width=0.75, color=colours[: len(table.columns)])
    ax.set_xlabel("questions (development split)")
    ax.set_ylabel("")
    ax.set_title("Questions per data set and type")
    ax.legend(ncols=2, loc="lower right", frameon=False)
    fig.tight_layout()
    return fig


@paper_style()
def plot_length_distributions(
    lengths: Mapping[str, np.ndarray], unit: str = "tokens", title: str = ""
) -> plt.Figure:
    """One box per data set (log scale, display names): how long the passages or documents
    are; two columns wide."""
    names = list(lengths)
    fig, ax = paper_figure(2, 0.25 * len(names) + 1.0)
    ax.boxplot([np.asarray(lengths[n]) for n in names], orientation="horizontal", showfliers=False)
    ax.set_yticks(range(1, len(names) + 1), [dataset_name(n) for n in names])
    ax.set_xscale("log")
    ax.set_xlabel(f"length ({unit}, log scale)")
    ax.set_title(title or "Passage / document length per data set")
    fig.tight_layout()
    return fig


@paper_style()
def plot_stage_costs(costs: pd.DataFrame, title: str = "cost per step") -> plt.Figure:
    """Two bar charts per trace step: LLM calls, and cold-cache input/output tokens; two
    columns wide.

    ``costs`` has ``step``, ``llm_calls``, ``input_tokens`` and ``output_tokens`` columns
    (:func:`ace_lab.widgets.cost_frame`). Seconds are left out on purpose: they are this
    machine's, and the figure is committed.
    """
    height = 0.9 + 0.2 * max(len(costs), 3)
    fig, axes = paper_figure(2, height, ncols=2, layout="constrained")
    costs.plot.barh(x="step", y="llm_calls", ax=axes[0], legend=False, color="#1f77b4")
    axes[0].set_xlabel("LLM calls")
    axes[0].xaxis.get_major_locator().set_params(integer=True)
    tokens = costs.rename(columns={"input_tokens": "input", "output_tokens": "output"})
    tokens.plot.barh(x="step", y=["input", "output"], stacked=True, ax=axes[1])
    axes[1].set_xlabel("tokens (cold-cache)")
    axes[0].set_ylabel("trace step")
    axes[1].set_ylabel("")
    axes[1].tick_params(labelleft=False)  # the same steps in the same rows: named once
    for ax in axes:
        ax.invert_yaxis()
    fig.suptitle(title)
    return fig
