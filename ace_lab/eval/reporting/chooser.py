"""The per-question chooser scored on the committed slices, its runtime model and figures.

``python -m ace_lab.eval.reporting.chooser`` (``make chooser``) regenerates, from committed
records only (no LLM call):

- ``results/chooser/chooser_cv.{csv,md}`` — per slice and pooled: every candidate method, the
  chooser at each ``λ`` cross-validated (``auto`` buckets questions by form, ``auto:prior``
  by nothing, i.e. the best method on the other questions; 5-fold repeated 10 times, and
  ``:loo`` leave-one-question-out), the chooser fitted on the other slices of the same metric
  (``auto:slice-out``), and the per-question oracle; mean accuracy and mean input tokens, with
  ``n`` questions and each method's share of the picks;
- ``results/chooser/chooser_summary.md`` — per slice at ``λ = 0``: the best single method, the
  cross-validated choosers and the oracle (:func:`summary_table`);
- ``results/chooser/model.json`` — the model ``ace-lab run --methods auto`` loads;
- ``figures/09_chooser_curves.{png,pdf}`` and ``figures/09_pareto_<slice>.{png,pdf}``.

Accuracy is token F1 on the QA slices and judged Answer Correctness on GraphRAG-Bench, so the
pooled rows pool each metric on its own; every row carries its judge's calibration
(``judge calibration``, :func:`judge_cells`: empty for F1), and the summary is computed from the
unrounded table, not from the four decimals of its CSV.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from ace_lab.chooser import fit, lam_label, parse_lam
from ace_lab.chooser.crossval import held_out, k_fold, leave_one_out, oracle, summarize
from ace_lab.config import load_settings
from ace_lab.eval.graphragbench.cells import calibration_cell, score_identities
from ace_lab.eval.judging.calibration import CALIBRATION_NAME, JUDGING_FOLDER, load_calibrations
from ace_lab.eval.reporting.export import to_markdown
from ace_lab.eval.reporting.outcomes import (
    GRB_SCORES,
    SLICES,
    ChooserSlice,
    candidates,
    complete,
    method_points,
    slice_outcomes,
)
from ace_lab.eval.studies.jsonl import read_jsonl
from ace_lab.viz.figures import save_figure
from ace_lab.viz.names import dataset_name
from ace_lab.viz.pareto import plot_pareto, token_axis
from ace_lab.viz.sizes import paper_figure, paper_style

#: ``λ`` grid, per million input tokens (see :func:`ace_lab.chooser.parse_lam`).
LAMS: tuple[float, ...] = tuple(
    parse_lam(t) for t in ("0", "5", "20", "50", "100", "200", "500", "inf")
)
#: Pseudo-questions each form's mean is shrunk towards the method's mean by.
SHRINKAGE = 5.0
#: Repeated k-fold cross-validation: folds and seeded shuffles.
FOLDS = 5
REPEATS = 10
#: The chooser rows of the table, in order.
CHOOSER_ROWS = ("auto", "auto:loo", "auto:prior", "auto:prior:loo", "auto:slice-out", "oracle")
COMMAND = "python -m ace_lab.eval.reporting.chooser"
TABLE_COLUMNS = ["slice", "metric", "n", "row", "lam", "accuracy", "tokens", "picked"]
#: The column beside a judged accuracy: its judge's calibration ("" for F1, which has none).
JUDGE_COLUMN = "judge calibration"
_METRIC_NAME = {"f1": "F1", "answer_correctness": "judged ACC"}


def _rows(where: str, metric: str, row: str, summary: pd.DataFrame) -> list[dict[str, object]]:
    return [
        {
            "slice": where,
            "metric": _METRIC_NAME[metric],
            "n": int(s.n),
            "row": row,
            "lam": lam_label(s.lam),
            "accuracy": s.accuracy,
            "tokens": s.tokens,
            "picked": s.picked,
        }
        for s in summary.itertuples(index=False)
    ]


def _method_rows(where: str, metric: str, frame: pd.DataFrame) -> list[dict[str, object]]:
    points = method_points(frame)
    return [
        {
            "slice": where,
            "metric": _METRIC_NAME[metric],
            "n": int(p.n),
            "row": p.method,
            "lam": "",
            "accuracy": p.accuracy,
            "tokens": p.tokens,
            "picked": "",
        }
        for p in points.itertuples(index=False)
    ]


def slice_frames(results_dir: Path) -> dict[ChooserSlice, pd.DataFrame]:
    """Each slice's complete outcome frame over its candidate methods."""
    frames = {}
    for chosen in SLICES:
        frame = slice_outcomes(results_dir, chosen)
        frames[chosen] = complete(frame, candidates(results_dir, chosen, frame))
    return frames


def choices(frames: dict[ChooserSlice, pd.DataFrame]) -> dict[tuple[str, str], pd.DataFrame]:
    """(slice label, row) → per-question choices at every ``λ`` (all cross-validated), with
    question ids prefixed by the slice so pooled rows count each question once."""
    out: dict[tuple[str, str], pd.DataFrame] = {}
    for chosen, frame in frames.items():
        runs = {
            "auto": k_fold(frame, LAMS, folds=FOLDS, repeats=REPEATS, shrinkage=SHRINKAGE),
            "auto:loo": leave_one_out(frame, LAMS, shrinkage=SHRINKAGE),
            "auto:prior": k_fold(frame, LAMS, folds=FOLDS, repeats=REPEATS, feature="none"),
            "auto:prior:loo": leave_one_out(frame, LAMS, feature="none"),
        }
        others = [f for s, f in frames.items() if s.metric == chosen.metric and s != chosen]
        if others:
            train = pd.concat(others, ignore_index=True)
            runs["auto:slice-out"] = held_out(train, frame, LAMS, shrinkage=SHRINKAGE)
        runs["oracle"] = oracle(frame, LAMS)
        for row, picked in runs.items():
            out[(chosen.label, row)] = picked.assign(id=chosen.label + "/" + picked["id"])
    return out


def _pooled_label(metric: str) -> str:
    return f"pooled {'QA' if metric == 'f1' else 'GRB'}"


def chooser_table(frames: dict[ChooserSlice, pd.DataFrame]) -> pd.DataFrame:
    """Every slice's (then each metric's pooled) methods, choosers and oracle."""
    picked = choices(frames)
    rows: list[dict[str, object]] = []
    for chosen, frame in frames.items():
        rows += _method_rows(chosen.label, chosen.metric, frame)
        for row in CHOOSER_ROWS:
            if (chosen.label, row) in picked:
                summary = summarize(picked[(chosen.label, row)])
                rows += _rows(chosen.label, chosen.metric, row, summary)
    for metric in dict.fromkeys(s.metric for s in frames):
        group = [s for s in frames if s.metric == metric]
        # a single method pools only where every slice of the group ran it
        shared = set.intersection(*(set(frames[s]["method"]) for s in group))
        pooled = pd.concat([frames[s] for s in group], ignore_index=True)
        pooled = pooled[pooled["method"].isin(shared)]
        pooled["id"] = pooled["slice"] + "/" + pooled["id"]
        rows += _method_rows(_pooled_label(metric), metric, pooled)
        for row in CHOOSER_ROWS:
            parts = [picked[(s.label, row)] for s in group if (s.label, row) in picked]
            if parts:
                summary = summarize(pd.concat(parts, ignore_index=True))
                rows += _rows(_pooled_label(metric), metric, row, summary)
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def judge_cells(results_dir: Path, slices: Sequence[ChooserSlice] = SLICES) -> dict[str, str]:
    """Slice label (and pooled label) → the calibration of the judge(s) behind its accuracy
    (the newest stored score per answer, by judge identity), "" where the accuracy is F1."""
    calibrations = load_calibrations(Path(results_dir) / JUDGING_FOLDER / CALIBRATION_NAME)
    out: dict[str, str] = {}
    pooled: dict[str, Counter] = {}
    for chosen in slices:
        if not chosen.judged:
            out[chosen.label] = out[_pooled_label(chosen.metric)] = ""
            continue
        path = Path(results_dir) / chosen.study / GRB_SCORES
        lines = pd.DataFrame(read_jsonl(path) if path.is_file() else [])
        if not lines.empty:
            lines = lines.drop_duplicates(["method", "id"], keep="last")
        found = score_identities(lines, chosen.metric)
        out[chosen.label] = calibration_cell(chosen.metric, calibrations, found)
        pooled.setdefault(_pooled_label(chosen.metric), Counter()).update(found)
    for label, found in pooled.items():
        metric = next(s.metric for s in slices if _pooled_label(s.metric) == label)
        out[label] = calibration_cell(metric, calibrations, found)
    return out


def with_judges(table: pd.DataFrame, judges: Mapping[str, str]) -> pd.DataFrame:
    """``table`` with :data:`JUDGE_COLUMN` after ``metric``: each row's judge calibration."""
    out = table.copy()
    out.insert(2, JUDGE_COLUMN, out["slice"].map(lambda s: judges.get(s, "")))
    return out


def summary_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per slice at ``λ = 0`` (accuracy first): the best single method, the chooser
    cross-validated (``auto``, ``auto:prior``, ``auto:slice-out``) and the oracle, each with
    its mean accuracy and input tokens, the chooser's gap to the best method and to the oracle."""
    rows = []
    for where, sub in table.groupby("slice", sort=False):
        methods = sub[sub["lam"] == ""]
        best = methods.loc[methods["accuracy"].idxmax()]
        at_zero = sub[sub["lam"] == "0"].set_index("row")
        oracle_acc = at_zero.loc["oracle", "accuracy"] if "oracle" in at_zero.index else None
        for row in ("best single", "auto", "auto:prior", "auto:slice-out", "oracle"):
            if row != "best single" and row not in at_zero.index:
                continue
            point = best if row == "best single" else at_zero.loc[row]
            rows.append(
                {
                    "slice": where,
                    "metric": point["metric"],
                    **({JUDGE_COLUMN: point[JUDGE_COLUMN]} if JUDGE_COLUMN in point else {}),
                    "n": point["n"],
                    "row": f"best single: {best['row']}" if row == "best single" else row,
                    "accuracy": point["accuracy"],
                    "input tokens": point["tokens"],
                    "vs best single": point["accuracy"] - best["accuracy"],
                    "vs oracle": point["accuracy"] - oracle_acc if oracle_acc is not None else None,
                }
            )
    return pd.DataFrame(rows)


def summary_markdown(summary: pd.DataFrame) -> str:
    """:func:`summary_table` as markdown: accuracy to 3 places, tokens whole, gaps signed."""
    shown = summary.copy()
    shown["n"] = shown["n"].astype(int)
    shown["accuracy"] = shown["accuracy"].map("{:.3f}".format)
    shown["input tokens"] = shown["input tokens"].map("{:,.0f}".format)
    for column in ("vs best single", "vs oracle"):
        shown[column] = shown[column].map("{:+.3f}".format)
    return to_markdown(shown)


def runtime_model(frames: dict[ChooserSlice, pd.DataFrame], runnable: Iterable[str]) -> str:
    """The JSON of the model ``auto`` runs with: fitted on every QA slice (F1), over the
    ``runnable`` methods every QA slice ran, at ``λ = 0``."""
    group = [s for s in frames if s.metric == "f1"]
    shared = set.intersection(*(set(frames[s]["method"]) for s in group))
    allowed = set(runnable)
    methods = [m for m in dict.fromkeys(frames[group[0]]["method"]) if m in shared & allowed]
    pooled = pd.concat([frames[s] for s in group], ignore_index=True)
    pooled["id"] = pooled["slice"] + "/" + pooled["id"]
    model = fit(
        pooled,
        methods=methods,
        shrinkage=SHRINKAGE,
        metric="f1",
        slices=tuple(s.study for s in group),
        command=COMMAND,
    )
    return model.to_json()


@paper_style()
def curves_figure(table: pd.DataFrame) -> plt.Figure:
    """Accuracy against mean input tokens per slice: methods as points, the choosers over
    ``λ`` as lines, the oracle over ``λ`` as a dotted line; two columns wide, three panels a
    row, the legend in an empty panel (or above the panels)."""
    places = list(dict.fromkeys(table["slice"]))
    names = {s.label: dataset_name(s.study) for s in SLICES}
    cols = 3
    rows = math.ceil(len(places) / cols)
    fig, axes = paper_figure(
        2, 2.0 * rows + 0.5, nrows=rows, ncols=cols, squeeze=False, layout="constrained"
    )
    styles = {"auto": ("#d62728", "--", "x"), "auto:prior": ("#1f77b4", "-.", "+")}
    styles |= {"auto:slice-out": ("#2ca02c", ":", "1"), "oracle": ("#ff9800", ":", "*")}
    for ax, place in zip(axes.flat, places, strict=False):
        sub = table[table["slice"] == place]
        single = sub[sub["lam"] == ""]
        ax.scatter(single["tokens"], single["accuracy"], s=8, color="#757575", zorder=3)
        for row, (colour, line, marker) in styles.items():
            curve = sub[sub["row"] == row]  # in λ order: the table's
            if len(curve):
                ax.plot(
                    curve["tokens"],
                    curve["accuracy"],
                    line,
                    marker=marker,
                    color=colour,
                    markersize=3,
                    linewidth=0.8,
                    label=row,
                )
        token_axis(ax)
        metric = sub["metric"].iloc[0]
        ax.set_title(f"{names.get(place, place)}\n(n = {int(sub['n'].max())}, {metric})")
        ax.grid(True, linewidth=0.3, alpha=0.5)
    spare = list(axes.flat)[len(places) :]
    for ax in spare:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if spare:  # in the first empty panel; else above the panels, clear of the axis labels
        spare[0].legend(handles, labels, loc="center", frameon=False)
    else:
        fig.legend(handles, labels, loc="outside upper center", ncols=len(labels), frameon=False)
    fig.supxlabel("mean input tokens per question (log scale)")
    fig.supylabel("accuracy (F1 or judged ACC)")
    return fig


def pareto_figures(results_dir: Path, table: pd.DataFrame, figures_dir: Path) -> list[Path]:
    """One Pareto figure per slice from every record the slice holds, with the chooser."""
    written = []
    for chosen in SLICES:
        points = method_points(slice_outcomes(results_dir, chosen))
        sub = table[table["slice"] == chosen.label]
        auto = sub[sub["row"] == "auto"]
        best = sub[(sub["row"] == "oracle") & (sub["lam"] == "0")]
        fig = plot_pareto(
            points,
            title=f"{dataset_name(chosen.study)} (n = {int(sub['n'].max())})",
            metric=_METRIC_NAME[chosen.metric],
            chooser=auto,
            oracle=(float(best["accuracy"].iloc[0]), float(best["tokens"].iloc[0])),
        )
        stem = f"09_pareto_{chosen.label.lower().replace('-', '_')}"
        written += save_figure(fig, stem, figures_dir)
        plt.close(fig)
    return written


def write_tables(table: pd.DataFrame, results_dir: Path) -> list[Path]:
    """``chooser_cv.{csv,md}`` and ``chooser_summary.md`` under ``results_dir/chooser``, each
    row with its judge's calibration; the summary computed from the unrounded ``table`` (the
    CSV's four decimals would round a second time); the paths written."""
    table = with_judges(table, judge_cells(results_dir))
    out = results_dir / "chooser"
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "chooser_cv.csv", index=False, float_format="%.4f")
    (out / "chooser_cv.md").write_text(to_markdown(table) + "\n", encoding="utf-8")
    summary = summary_table(table)
    (out / "chooser_summary.md").write_text(summary_markdown(summary) + "\n", encoding="utf-8")
    return [out / "chooser_cv.csv", out / "chooser_cv.md", out / "chooser_summary.md"]


def regenerate(
    results_dir: Path, figures_dir: Path, runnable: Sequence[str] | None = None
) -> list[Path]:
    """Write the chooser's table, model and figures; return the paths written."""
    frames = slice_frames(results_dir)
    table = chooser_table(frames)
    written = write_tables(table, results_dir)
    out = results_dir / "chooser"
    if runnable is None:
        from ace_lab.registry import graph_family

        methods = set().union(*(set(f["method"]) for f in frames.values()))
        runnable = [m for m in methods if graph_family(m) == "hierarchical"]
    (out / "model.json").write_text(runtime_model(frames, runnable), encoding="utf-8")
    written.append(out / "model.json")
    fig = curves_figure(table)
    written += save_figure(fig, "09_chooser_curves", figures_dir)
    plt.close(fig)
    return written + pareto_figures(results_dir, table, figures_dir)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results-dir", type=Path, help="default: the settings' results_dir")
    parser.add_argument("--figures-dir", type=Path, help="default: the settings' figures_dir")
    args = parser.parse_args(argv)
    settings = load_settings()
    results_dir = args.results_dir or Path(settings.results_dir)
    for path in regenerate(results_dir, args.figures_dir or Path(settings.figures_dir)):
        print(path)


if __name__ == "__main__":
    main()
