"""Plot helpers shared by the notebooks; every figure is saved as PNG and PDF."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd


def save_figure(fig: plt.Figure, name: str, figures_dir: Path | str) -> list[Path]:
    """Write ``fig`` to ``figures_dir/name.png`` (150 dpi) and ``.pdf``; return both paths."""
    figures_dir = Path(figures_dir)
    figures_dir.mkdir(parents=True, exist_ok=True)
    paths = [figures_dir / f"{name}.png", figures_dir / f"{name}.pdf"]
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    return paths


def plot_question_types(type_counts: Mapping[str, pd.Series]) -> plt.Figure:
    """Horizontal stacked bars: questions per data set, split by question type."""
    table = pd.DataFrame({name: counts for name, counts in type_counts.items()}).T.fillna(0)
    table = table.loc[table.sum(axis=1).sort_values().index]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(table) + 1.5))
    table.plot.barh(stacked=True, ax=ax, width=0.75, colormap="tab20")
    ax.set_xlabel("questions (development split)")
    ax.set_ylabel("")
    ax.set_title("Questions per data set and type")
    ax.legend(fontsize=7, ncols=2, loc="lower right", frameon=False)
    fig.tight_layout()
    return fig


def plot_length_distributions(
    lengths: Mapping[str, np.ndarray], unit: str = "tokens", title: str = ""
) -> plt.Figure:
    """One box per data set (log scale): how long the passages or documents are."""
    names = list(lengths)
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(names) + 1.5))
    ax.boxplot([np.asarray(lengths[n]) for n in names], vert=False, showfliers=False)
    ax.set_yticks(range(1, len(names) + 1), names)
    ax.set_xscale("log")
    ax.set_xlabel(f"length ({unit}, log scale)")
    ax.set_title(title or "Passage / document length per data set")
    fig.tight_layout()
    return fig
