"""The documentation's GraphRAG-Bench tables, generated from the tables ``ace-lab report
--export`` writes beside each study (``graphragbench.csv``, ``graphragbench_paired.csv``): a
figure kind of :mod:`ace_lab.eval.reporting.docs_numbers` each (:data:`FIGURES`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ace_lab.eval.graphragbench.views import METRIC_NAMES
from ace_lab.eval.reporting.docs_numbers import STUDIES, DocsError, Figure
from ace_lab.eval.reporting.export import to_markdown


def _scores(results_dir: Path, study: str) -> pd.DataFrame:
    return pd.read_csv(Path(results_dir) / STUDIES.get(study, study) / "graphragbench.csv")


def _judge(row: pd.Series, paired: pd.DataFrame) -> str:
    """The calibration beside a method's ACC: its paired row's (the judges of both sides) where
    it has one, else its own scores'."""
    if "judge_calibration" in paired and row["method"] in paired.index:
        return str(paired.loc[row["method"], "judge_calibration"])
    return str(row["judge_calibration"])


def grb_table_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``grb_table STUDY``: a GraphRAG-Bench study's overall Answer Correctness per method with
    its interval, the paired difference against the baseline of ``graphragbench_paired``, the
    mean context size and the judge's calibration (accuracy, n, and the uninformative mark), from
    the two tables ``ace-lab report --export`` wrote for it."""
    (study,) = args
    directory = Path(results_dir) / STUDIES.get(study, study)
    scores = _scores(results_dir, study)
    # the overall row is labelled "Overall (query-weighted, not an official figure)"
    is_overall = scores["type"].str.startswith("Overall")
    overall = scores[(scores["metric"] == "answer_correctness") & is_overall]
    paired = pd.read_csv(directory / "graphragbench_paired.csv").set_index("method")
    baseline = str(paired["baseline"].iloc[0])
    tokens = paired["context_tokens"].to_dict() | {
        baseline: paired["context_tokens_baseline"].iloc[0]
    }
    rows = [
        {
            "method": f"`{row['method']}`",
            "ACC [95% CI]": row["mean [95% CI]"],
            f"paired against `{baseline}` [95% CI]": (
                paired.loc[row["method"], "diff [95% CI]"] if row["method"] in paired.index else "—"
            ),
            "context tokens": f"{tokens[row['method']]:,.0f}",
            "judge calibration": _judge(row, paired),
        }
        for _, row in overall.iterrows()
    ]
    rows.sort(key=lambda r: r["method"] != f"`{baseline}`")
    return to_markdown(pd.DataFrame(rows))


def grb_metrics_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``grb_metrics STUDY``: every GraphRAG-Bench metric of every method of a study, overall
    (query-weighted over the types the benchmark gives the metric) with the number of questions
    scored, ``—`` where none is; the last row is each judged column's calibration (accuracy, n
    and the uninformative mark), so no judged number stands without it."""
    (study,) = args
    scores = _scores(results_dir, study)
    overall = scores[scores["type"].str.startswith("Overall")]
    methods = list(dict.fromkeys(scores["method"]))
    metrics = [m for m in METRIC_NAMES if m in set(scores["metric"])]
    rows = []
    for method in methods:
        row = {"method": f"`{method}`"}
        for metric in metrics:
            found = overall[(overall["method"] == method) & (overall["metric"] == metric)]
            n = int(found["n"].iloc[0]) if len(found) else 0
            row[METRIC_NAMES[metric]] = f"{found['mean'].iloc[0]:.3f} ({n})" if n else "—"
        rows.append(row)
    judge = {"method": "judge calibration"}
    for metric in metrics:
        cells = scores.loc[scores["metric"] == metric, "judge_calibration"].dropna()
        judge[METRIC_NAMES[metric]] = str(cells.iloc[0]) if len(cells) else "no judge"
    return to_markdown(pd.DataFrame([*rows, judge]))


def _overall_row(results_dir: Path, study: str, method: str, metric: str) -> pd.Series:
    scores = _scores(results_dir, study)
    found = scores[
        (scores["method"] == method)
        & (scores["metric"] == metric)
        & scores["type"].str.startswith("Overall")
    ]
    if len(found) != 1:
        raise DocsError(f"{study}: no overall {metric} of {method!r} in graphragbench.csv")
    return found.iloc[0]


def grb_score_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``grb_score STUDY METHOD METRIC``: a method's overall score on a GraphRAG-Bench metric,
    with the judge's calibration beside it where the metric is judged:
    ``1.000 (judge: 0.55 (n=22) judge uninformative)``."""
    study, method, metric = args
    row = _overall_row(results_dir, study, method, metric)
    judge = row.get("judge_calibration")
    shown = f"{float(row['mean']):.3f}"
    return f"{shown} (judge: {judge})" if isinstance(judge, str) and judge else shown


FIGURES: dict[str, Figure] = {
    "grb_table": grb_table_figure,
    "grb_metrics": grb_metrics_figure,
    "grb_score": grb_score_figure,
}
