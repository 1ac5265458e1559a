"""Budget sweeps written out: per slice, the curves, the areas under them and one figure.

``python -m ace_lab.eval.reporting.budget_report`` reads every evidence-only study
(``results/<slice id>-evidence``, written by ``ace-lab run --evidence-only --budgets``) and
writes, into that study's folder, ``budget_curves.{csv,md,tex}`` (each method's metrics at each
budget), ``budget_auc.{csv,md,tex}`` (the area under each method's coverage and passage-recall
curves with paired differences from NaiveRAG, :func:`~ace_lab.eval.reporting.evidence.budget_auc`)
and the figure ``figures/budget_<slice id>.{png,pdf}``: coverage and passage recall against the
context budget, one line per method, at single-column width; then ``results/power_by_metric.*``
(:mod:`~ace_lab.eval.reporting.power_by_metric`: the difference F1 and each evidence metric
can detect at the committed n). No LLM call.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from ace_lab.config import load_settings
from ace_lab.eval.reporting.claim_values import MULTIHOP_STUDIES
from ace_lab.eval.reporting.evidence import (
    METRIC_LABELS,
    budget_auc,
    budget_curves,
)
from ace_lab.eval.reporting.export import export_table
from ace_lab.eval.reporting.power_by_metric import power_by_metric
from ace_lab.eval.studies.runner import EVIDENCE_SUFFIX
from ace_lab.eval.studies.study import load_results
from ace_lab.viz.figures import save_figure
from ace_lab.viz.names import dataset_name, display_name
from ace_lab.viz.palette import method_colours
from ace_lab.viz.sizes import paper_figure, paper_style

#: The metrics a sweep's figure and area table show (each where the slice has it).
SWEEP_METRICS = ("answer_coverage", "passage_recall")
#: Answer coverage asks for the whole gold answer in the context: defined for short answers (the
#: ``qa`` task), not for GraphRAG-Bench's sentences, so other tasks show passage recall alone.
SHORT_ANSWER_TASKS = ("qa",)


def sweep_metrics(task: str | None) -> tuple[str, ...]:
    """The metrics a sweep of a study of ``task`` shows."""
    return SWEEP_METRICS if task in SHORT_ANSWER_TASKS else ("passage_recall",)


#: The reference method of the area table's paired differences.
REFERENCE = "naive"


def study_task(study: str, results_dir: Path) -> str | None:
    """The task a study's manifest names (None without one)."""
    path = Path(results_dir) / study / "manifest.json"
    return json.loads(path.read_text(encoding="utf-8")).get("task") if path.is_file() else None


def evidence_studies(results_dir: Path) -> list[str]:
    """The evidence-only studies under ``results_dir`` (folders named ``*-evidence``)."""
    root = Path(results_dir)
    found = root.glob(f"*{EVIDENCE_SUFFIX}") if root.is_dir() else []
    return sorted(p.name for p in found if p.is_dir() and any(p.glob("*.jsonl")))


def budget_figure(
    curves: pd.DataFrame, title: str, metrics: Sequence[str] = SWEEP_METRICS
) -> plt.Figure:
    """Coverage and passage recall (one panel each, where the curves have them) against the
    context budget, one line per method with its display name, single column."""
    metrics = [m for m in metrics if m in set(curves["metric"])] or list(metrics[:1])
    methods = list(dict.fromkeys(curves["method"]))
    colours = method_colours(methods)
    with paper_style():
        fig, axes = paper_figure(1, 1.6 + 1.5 * len(metrics), nrows=len(metrics), squeeze=False)
        for ax, metric in zip(axes[:, 0], metrics, strict=True):
            rows = curves[curves["metric"] == metric]
            for method in methods:
                line = rows[rows["method"] == method].sort_values("budget")
                if len(line):
                    ax.plot(
                        line["budget"],
                        line["mean"],
                        marker="o",
                        color=colours[method],
                        label=display_name(method),
                    )
            ax.set_ylabel(METRIC_LABELS[metric])
            ax.set_ylim(-0.02, 1.02)
            ax.grid(alpha=0.3)
        axes[-1, 0].set_xlabel("context budget (tokens)")
        n = int(curves["n"].max()) if len(curves) else 0
        axes[0, 0].set_title(f"{title} (n = {n})")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2)
        fig.tight_layout()
    return fig


def budget_tables(
    df: pd.DataFrame, metrics: Sequence[str] = SWEEP_METRICS
) -> dict[str, pd.DataFrame]:
    """``budget_curves`` and ``budget_auc`` of an evidence study's records (empty: no sweep,
    e.g. a study run at the shared budget alone)."""
    curves = budget_curves(df, metrics)
    areas = [a for a in (budget_auc(df, metric, REFERENCE) for metric in metrics) if len(a)]
    if curves.empty or not areas:  # no method ran at two budgets: points, not curves
        return {}
    return {"budget_curves": curves, "budget_auc": pd.concat(areas, ignore_index=True)}


def write_budget_report(study: str, results_dir: Path, figures_dir: Path) -> list[Path]:
    """The curves, area tables and figure of one evidence-only study; the paths written."""
    df = load_results(study, replace(load_settings(), results_dir=Path(results_dir)))
    metrics = sweep_metrics(study_task(study, results_dir))
    made = budget_tables(df, metrics)
    if not made:
        return []
    directory = Path(results_dir) / study
    written = [
        path for name, t in made.items() for path in export_table(t, name, directory).values()
    ]
    slice_id = study.removesuffix(EVIDENCE_SUFFIX)
    fig = budget_figure(made["budget_curves"], dataset_name(slice_id), metrics)
    written += save_figure(fig, f"budget_{slice_id}", figures_dir)
    plt.close(fig)
    return written


#: (label, answered run, evidence-only run) compared by ``power_by_metric``; the first is the
#: reference: every method of the main table at the baselines' budget.
POWER_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("NaiveRAG", "naive", "naive:b1500"),
    *(
        (name, name, f"{name}:b1500")
        for name in ("hirag", "lightrag", "hipporag", "graphrag", "mosaic", "ace-adaptive")
    ),
    ("ace-full:b1500", "ace-full:b1500", "ace-full:b1500"),
)
#: The table ``power_by_metric`` writes under ``results/``.
POWER_TABLE = "power_by_metric"


def power_table(results_dir: Path) -> pd.DataFrame:
    """:func:`~ace_lab.eval.reporting.power_by_metric.power_by_metric` over the multi-hop slices
    that have both an answered and an evidence-only study."""
    settings = replace(load_settings(), results_dir=Path(results_dir))
    frames = {}
    for study in MULTIHOP_STUDIES:
        evidence = f"{study}{EVIDENCE_SUFFIX}"
        if (Path(results_dir) / study).is_dir() and (Path(results_dir) / evidence).is_dir():
            frames[dataset_name(study)] = {
                "answered": load_results(study, settings),
                "evidence": load_results(evidence, settings),
            }
    return power_by_metric(frames, POWER_PAIRS)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", nargs="*", help="evidence studies (default: every one)")
    args = parser.parse_args(argv)
    settings = load_settings()
    results_dir, figures_dir = Path(settings.results_dir), Path(settings.figures_dir)
    for study in args.study or evidence_studies(results_dir):
        for path in write_budget_report(study, results_dir, figures_dir):
            print(path)
    if not args.study:
        for path in export_table(power_table(results_dir), POWER_TABLE, results_dir).values():
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
