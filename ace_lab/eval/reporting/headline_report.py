"""Headline tables and figures written out: ``python -m ace_lab.eval.reporting.headline_report``.

For each task of :data:`~ace_lab.eval.reporting.headline.TASKS`: ``results/<task>.{csv,md,tex}``
(:func:`~ace_lab.eval.reporting.headline.task_table`) and ``figures/<task>.{png,pdf}``: one panel
per slice, each core method's reader score and evidence metric with their 95 % intervals, at
double-column width with display names. No LLM call.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab.config import load_settings
from ace_lab.eval.reporting.export import export_table
from ace_lab.eval.reporting.headline import TASKS, Task, task_table
from ace_lab.viz.figures import save_figure
from ace_lab.viz.sizes import paper_figure, paper_style

#: Marker and offset of each metric of a headline figure (reader score, evidence metric).
MARKERS = (("o", -0.15, "#4e79a7"), ("s", 0.15, "#e15759"))


def headline_figure(points: pd.DataFrame, task: Task) -> plt.Figure:
    """One panel per slice: per method, the reader's score and the evidence metric with their
    intervals (a method without a run on a slice has no marker there)."""
    slices = list(dict.fromkeys(points["slice"])) or ["(no records)"]
    methods = list(dict.fromkeys(points["method"]))
    labels = (task.score[1], task.evidence[1])
    with paper_style():
        height = 0.9 + 0.22 * max(len(methods), 1)
        fig, axes = paper_figure(2, height, ncols=len(slices), squeeze=False, sharey=True)
        for ax, part in zip(axes[0], slices, strict=True):
            for (marker, offset, colour), label in zip(MARKERS, labels, strict=True):
                rows = points[(points["slice"] == part) & (points["metric"] == label)]
                ys = np.array([methods.index(m) for m in rows["method"]]) + offset
                err = [rows["mean"] - rows["low"], rows["high"] - rows["mean"]]
                ax.errorbar(rows["mean"], ys, xerr=err, fmt=marker, color=colour, label=label)
            ax.set_title(part)
            ax.set_xlim(-0.02, 1.02)
            ax.grid(axis="x", alpha=0.3)
            ax.set_xlabel("score (95 % CI)")
        axes[0, 0].set_yticks(range(len(methods)), methods)
        axes[0, 0].invert_yaxis()
        handles, names = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2)
        fig.tight_layout()
    return fig


def write_headlines(results_dir: Path, figures_dir: Path) -> list[Path]:
    """Every task's headline table and figure; the paths written."""
    written: list[Path] = []
    for task in TASKS:
        table, points = task_table(task, results_dir)
        written += export_table(table, task.name, results_dir).values()
        fig = headline_figure(points, task)
        written += save_figure(fig, task.name, figures_dir)
        plt.close(fig)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    settings = load_settings()
    for path in write_headlines(Path(settings.results_dir), Path(settings.figures_dir)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
