"""Numbers in the documentation, generated from the committed records.

A generated part of a markdown file lies between two HTML comments, ``<!-- KIND ARGS: begin -->``
and ``<!-- KIND ARGS: end -->`` (invisible when rendered): ``KIND`` names a figure function
(:data:`FIGURES`, plus the ones a method's report adds), ``ARGS`` are its space-separated
arguments, e.g. ``<!-- paired hotpotqa_dev_sample200-n20-s0 naive hirag f1: begin -->``. A part
whose body starts on a new line is a block (a table) and is written on lines of its own; any
other part is inline, a figure inside a sentence.

:func:`regenerate` rewrites every part of a text from the records, :func:`stale_parts` lists the
parts whose text disagrees with what the records give, and :func:`loose_numbers` lists the
numbers of a text that lie outside every generated part (a hand-typed figure), so a test can
hold a document to "every result number is generated". The figures call the functions that
write the committed tables (:func:`~ace_lab.eval.reporting.tables.main_table`,
:func:`~ace_lab.eval.reporting.tables.paired_tests`), with their seeds, so a figure in the prose
and the table beside it cannot disagree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path

import pandas as pd

from ace_lab.config import load_settings
from ace_lab.eval.judging.calibration import (
    CALIBRATION_NAME,
    JUDGING_FOLDER,
    UNINFORMATIVE,
    from_record,
)
from ace_lab.eval.metrics.table import answer_metrics, context_metrics
from ace_lab.eval.reporting.export import to_markdown
from ace_lab.eval.reporting.pooled import power_summary
from ace_lab.eval.reporting.tables import common_ids, method_rows, paired_tests, per_question
from ace_lab.eval.statistics import paired_bootstrap
from ace_lab.eval.statistics.proportions import mean_interval
from ace_lab.eval.studies.study import load_results


class DocsError(ValueError):
    """A generated part that cannot be made: an unknown kind, a method or table the records do
    not hold (said in one line by ``ace-lab docs``)."""


#: A figure: the results directory and the marker's arguments -> the text of the part.
Figure = Callable[[Path, tuple[str, ...]], str]

PART = re.compile(r"<!-- (?P<key>[^>]+?): begin -->(?P<body>.*?)<!-- (?P=key): end -->", re.S)
#: A number as prose writes it (not part of a word such as F1, 2Wiki or qwen1.5b).
NUMBER = re.compile(r"(?<![\w.\-])[+−-]?\d(?:[\d,]*\d)?(?:\.\d+)?(?![\w]|\.\d)")
#: What is not prose: fenced code, inline code, link targets, HTML comments.
NOT_PROSE = re.compile(r"```.*?```|`[^`\n]*`|\]\([^)]*\)|<!--.*?-->", re.S)

#: Short names of the data set labels in the copied main table (other labels are kept).
TABLE_LABELS = {
    "hotpotqa_dev_sample200": "HotpotQA",
    "2wikimultihopqa_hipporag1000": "2Wiki",
    "musique_dev_sample292": "MuSiQue",
}
#: The documentation's names for ArcRAG's :data:`~ace_lab.eval.metrics.context_stats.
#: ORIGIN_COLUMNS`; the context columns' are their labels in the metrics table.
ORIGIN_NAMES = {
    "context_from_model": "context from model Cypher",
    "context_from_template": "context from template",
    "context_from_fallback": "context from fallback",
}


# ------------------------------------------------------------------------------ the parts
def regenerate(text: str, figures: Mapping[str, Figure], results_dir: Path) -> str:
    """``text`` with every generated part rewritten from the records under ``results_dir``;
    a :class:`DocsError` names a part whose kind ``figures`` does not know."""

    def fill(match: re.Match[str]) -> str:
        key, body = match["key"], match["body"]
        value = figure_text(key, figures, results_dir)
        inner = f"\n{value.strip(chr(10))}\n" if body.startswith("\n") else value
        return f"<!-- {key}: begin -->{inner}<!-- {key}: end -->"

    return PART.sub(fill, text)


def figure_text(key: str, figures: Mapping[str, Figure], results_dir: Path) -> str:
    """The text of the part ``key`` (``KIND ARGS``) from the records under ``results_dir``."""
    kind, *args = key.split()
    if kind not in figures:
        raise DocsError(f"unknown generated part {key!r}; known kinds: {sorted(figures)}")
    return figures[kind](Path(results_dir), tuple(args))


def parts(text: str) -> list[tuple[str, str]]:
    """(key, body) of every generated part of ``text``, in order."""
    return [(m["key"], m["body"]) for m in PART.finditer(text)]


def stale_parts(text: str, figures: Mapping[str, Figure], results_dir: Path) -> list[str]:
    """One line per generated part whose text differs from what the records give."""
    stale = []
    for key, body in parts(text):
        value = figure_text(key, figures, results_dir).strip("\n")
        if body.strip("\n") != value:
            stale.append(f"{key}: the text says {body.strip()[:80]!r}, the records {value[:80]!r}")
    return stale


def loose_numbers(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The numbers of ``text``'s prose outside every generated part (and outside code, link
    targets and comments), each with its context. ``allowed`` are regular expressions of
    phrases whose numbers are names or settings, not results (e.g. ``r"notebook \\d\\d"``,
    ``r"95 %"``); they are removed first."""
    prose = NOT_PROSE.sub(" ", PART.sub(" ", text))
    for pattern in allowed:
        prose = re.sub(pattern, " ", prose)
    return [
        f"{m[0]!r} in {prose[max(0, m.start() - 40) : m.end() + 40]!r}"
        for m in NUMBER.finditer(prose)
    ]


# ------------------------------------------------------------------------------ figures
#: Short study names the markers may use (any other name is a study directory).
STUDIES = {
    "hotpot": "hotpotqa_dev_sample200-n20-s0",
    "2wiki": "2wikimultihopqa_hipporag1000-n20-s0",
    "musique": "musique_dev_sample292-n10-s0",
    "medical": "graphragbench_medical-n20-s0",
    "novel": "graphragbench_novel-n20-s0",
    "hotpot_pooled_evidence": "hotpotqa_train_sample100_hipporag_pooled-n100-s0-evidence",
    "hotpot_pooled_answered": (
        "hotpotqa_train_sample100_hipporag_pooled-n100-s0-evidence-reread-short"
    ),
}


@cache
def study_records(results_dir: Path, study: str) -> pd.DataFrame:
    """Every record of ``study`` (or its :data:`STUDIES` short name) under ``results_dir``,
    read once per process."""
    study = STUDIES.get(study, study)
    return load_results(study, replace(load_settings(), results_dir=Path(results_dir)))


def _column(results_dir: Path, study: str, method: str, column: str) -> pd.Series:
    rows = method_rows(study_records(results_dir, study), method)
    if rows.empty:
        raise DocsError(f"no records of {method!r} in study {study!r}")
    return pd.to_numeric(rows[column], errors="coerce").dropna()


def ci_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``ci STUDY METHOD COLUMN``: the mean with its 95% bootstrap interval, as the main table
    prints it (``0.350 [0.150, 0.550]``)."""
    study, method, column = args
    return str(mean_interval(_column(results_dir, study, method, column).to_numpy()))


def mean_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``mean STUDY METHOD COLUMN [DECIMALS]``: the mean over the method's questions."""
    study, method, column, *decimals = args
    digits = int(decimals[0]) if decimals else 3
    return f"{_column(results_dir, study, method, column).mean():,.{digits}f}"


def hits_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``hits STUDY METHOD COLUMN``: ``k of n``, the questions whose ``COLUMN`` is 1 (e.g. EM)."""
    study, method, column = args
    values = _column(results_dir, study, method, column)
    return f"{int((values == 1).sum())} of {len(values)}"


def hits_on_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``hits_on STUDY METHOD COLUMN REFERENCE``: :func:`hits_figure` over only the questions
    ``REFERENCE`` answered (e.g. HiRAG on the stratified sample ArcRAG's ablations ran on)."""
    study, method, column, reference = args
    ids = method_rows(study_records(results_dir, study), reference)["id"]
    rows = method_rows(study_records(results_dir, study), method)
    values = pd.to_numeric(rows[rows["id"].isin(set(ids))][column], errors="coerce").dropna()
    return f"{int((values == 1).sum())} of {len(values)}"


def cell_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``cell STUDY/TABLE COLUMN FORMAT KEY=VALUE...``: one cell of a committed table
    (``<study>/<table>.csv``, written by the notebook that makes it), in the row whose columns
    equal the ``KEY=VALUE`` pairs; ``FORMAT`` is ``pct`` (``74 %``), ``int`` or a number of
    decimals."""
    table, column, form, *keys = args
    study, _, name = table.rpartition("/")
    frame = pd.read_csv(Path(results_dir) / STUDIES.get(study, study) / f"{name}.csv")
    for key, _, value in (k.partition("=") for k in keys):
        frame = frame[frame[key].astype(str) == value]
    if len(frame) != 1:
        raise DocsError(f"{table}: {len(frame)} rows match {keys}, expected one")
    value = float(frame[column].iloc[0])
    if form == "pct":  # two significant digits under 10 %
        return f"{100 * value:.0f} %" if value >= 0.1 or value == 0 else f"{100 * value:.1f} %"
    return f"{value:.0f}" if form == "int" else f"{value:,.{int(form)}f}"


def paired_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``paired STUDY A B COLUMN``: A − B on the questions both answered, as
    :func:`~ace_lab.eval.reporting.tables.paired_tests` gives it: ``+0.061 [-0.091, +0.231], p =
    0.57`` (paired bootstrap interval, sign-flip p-value, exact up to 24 pairs)."""
    study, a, b, column = args
    row = paired_tests(study_records(results_dir, study), b, [a], metric=column).iloc[0]
    p = float(row["p_permutation"])
    return (
        f"{row['diff [95% CI]']}, p = {p:.2f}"
        if p >= 0.1
        else f"{row['diff [95% CI]']}, p = {p:.2g}"
    )


def across_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``across STUDY_A METHOD_A STUDY_B METHOD_B COLUMN``: a method rerun in another study
    against its first run, on the questions both answered: ``0.571 vs 0.552 (paired
    +0.019 [-0.281, +0.319], p = 1.00)`` (paired bootstrap, sign-flip p-value)."""
    study_a, method_a, study_b, method_b, column = args
    a = per_question(study_records(results_dir, study_a), method_a, column)
    b = per_question(study_records(results_dir, study_b), method_b, column)
    ids = common_ids([a, b])
    x, y = a.loc[ids].to_numpy(), b.loc[ids].to_numpy()
    diff = paired_bootstrap(x, y)
    paired = f"{diff.mean_diff:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}], p = {diff.p_value:.2f}"
    return f"{x.mean():.3f} vs {y.mean():.3f} (paired {paired})"


def same_answers_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``same_answers STUDY_A METHOD_A STUDY_B METHOD_B``: ``k of n``, the questions both runs
    answered whose answer text is identical."""
    study_a, method_a, study_b, method_b = args
    a = method_rows(study_records(results_dir, study_a), method_a).set_index("id")["answer"]
    b = method_rows(study_records(results_dir, study_b), method_b).set_index("id")["answer"]
    ids = a.index.intersection(b.index)
    return f"{int((a.loc[ids] == b.loc[ids]).sum())} of {len(ids)}"


def main_table_markdown(combined: pd.DataFrame, labels: Mapping[str, str] | None = None) -> str:
    """The documentation's copy of a :func:`~ace_lab.eval.reporting.tables.main_table_by_dataset`
    table
    (as ``results/main_table.csv`` holds it): accuracy (n, each answer score with its interval)
    and contexts (the context columns under their labels in the metrics table, then
    :data:`ORIGIN_NAMES`), one markdown table each, data set labels shortened by ``labels``
    (default :data:`TABLE_LABELS`), methods as code."""
    labels = TABLE_LABELS if labels is None else labels
    datasets = [c[: -len(" n")] for c in combined.columns if c.endswith(" n")]
    accuracy = {"method": combined["method"].map(lambda m: f"`{m}`")}
    context = dict(accuracy)
    names = {metric.name: metric.label for metric in context_metrics()} | ORIGIN_NAMES
    for label in datasets:
        short = labels.get(label, label)
        accuracy[f"{short} n"] = combined[f"{label} n"]
        for metric in answer_metrics():  # those the table has (one written before a metric)
            if f"{label} {metric.label} [95% CI]" in combined:
                accuracy[f"{short} {metric.label}"] = combined[f"{label} {metric.label} [95% CI]"]
        for column, name in names.items():  # the origin columns only where the table has them
            if f"{label} {column}" in combined:
                context[f"{short} {name}"] = combined[f"{label} {column}"]
    tables = [to_markdown(pd.DataFrame(accuracy))]
    if len(context) > 1:
        tables.append(to_markdown(pd.DataFrame(context)))
    return "\n\n".join(tables)


def main_table_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``main_table``: ``results/main_table.csv`` (notebook 06) as :func:`main_table_markdown`."""
    return main_table_markdown(pd.read_csv(Path(results_dir) / "main_table.csv"))


def _p_text(p: float) -> str:
    if p != p:  # NaN: fewer than two pairs, nothing to test
        return "—"
    return f"{p:.2f}" if p >= 0.1 else f"{p:.2g}"


def _number(value: float, fmt: str) -> str:
    """``value`` formatted, or "—" where it is NaN (not defined at this n)."""
    return "—" if value != value else f"{value:{fmt}}"


def pooled_table_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``pooled_table``: ``results/main_pooled.csv`` (notebook 06,
    :func:`~ace_lab.eval.reporting.pooled.pooled_tests`) as a markdown table, data set labels
    shortened by :data:`TABLE_LABELS`, each slice's detectable difference in the slices' order,
    then its one-line power summary."""
    pooled = pd.read_csv(Path(results_dir) / "main_pooled.csv", dtype={"mde_per_slice": str})
    rows = [
        {
            "method": f"`{row['method']}`",
            "slices (n)": (
                ", ".join(TABLE_LABELS.get(s, s) for s in str(row["slices"]).split(", "))
                + f" ({row['n']})"
            ),
            f"F1 − `{row['baseline']}` [95% CI]": row["diff [95% CI]"],
            "p": _p_text(float(row["p_permutation"])),
            "p (Holm)": _p_text(float(row["p_holm"])),
            "MDE per slice": str(row["mde_per_slice"]),  # each slice's, at its own n
            "n per slice for +0.05": _number(row["n_for_+0.05"], ".0f"),
        }
        for _, row in pooled.iterrows()
    ]
    return f"{to_markdown(pd.DataFrame(rows))}\n\n{power_summary(pooled)}"


def revisions_table_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``revisions_table``: ``results/main_revisions.csv`` (notebook 06,
    :func:`~ace_lab.eval.reporting.revisions.revision_table`), each rerun against the row it
    replaces per slice, the pair's two values side by side (rerun / replaced)."""
    table = pd.read_csv(Path(results_dir) / "main_revisions.csv")

    def pair(row: pd.Series, column: str, fmt: str) -> str:
        return f"{row[column]:{fmt}} / {row[f'{column}_replaced']:{fmt}}"

    rows = [
        {
            "slice": TABLE_LABELS.get(row["slice"], row["slice"]),
            "rerun": f"`{row['method']}`",
            "replaces": f"`{row['replaces']}`",
            "n": int(row["n"]),
            "EM": pair(row, "EM", ".3f"),
            "F1": pair(row, "F1", ".3f"),
            "ΔF1 [95% CI]": row["ΔF1 [95% CI]"],
            "p (Holm)": _p_text(float(row["p_holm"])),
            "context tokens": pair(row, "context_tokens", ",.0f"),
            "input tokens / q": pair(row, "input_tokens", ",.0f"),
        }
        for _, row in table.iterrows()
    ]
    return to_markdown(pd.DataFrame(rows))


def calibration_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``calibration``: every committed judge calibration (``judging/calibration.json``), one
    row per (metric, judge identity: model, server build, prompt fingerprint): independent
    positive + negative probes, the items they held and how many got no readable verdict,
    balanced accuracy as stored (unreadable counted wrong) and on the readable items, TPR, TNR
    and the verdict against the threshold."""
    path = Path(results_dir) / JUDGING_FOLDER / CALIBRATION_NAME
    if not path.is_file():
        raise DocsError(f"no calibrations in {path}: run `ace-lab calibrate` first")
    records = json.loads(path.read_text(encoding="utf-8"))["calibrations"]
    rows = []
    for calibration in map(from_record, records):
        rows.append(
            {
                "metric": f"`{calibration.metric}`",
                "judge (model, server build, prompt)": calibration.identity.short(),
                "probes (+ / −)": f"{calibration.n_pos} + {calibration.n_neg}",
                "items": calibration.items,
                "unreadable": calibration.unreadable,
                "balanced accuracy": f"{calibration.accuracy:.3f}",
                "on readable items": _number(calibration.accuracy_readable, ".3f"),
                "TPR": f"{calibration.tpr:.3f}",
                "TNR": f"{calibration.tnr:.3f}",
                "verdict": "informative" if calibration.informative else UNINFORMATIVE,
            }
        )
    return to_markdown(pd.DataFrame(rows))


def table_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``table NAME``: the committed markdown file ``results/NAME.md`` as it stands (a bench's
    printed table, e.g. ``bench/graph_scale``, whose first line names the command that wrote
    it and whose footnotes say when and under what load)."""
    (name,) = args
    path = Path(results_dir) / f"{name}.md"
    if not path.is_file():
        raise DocsError(f"no committed table {path}: run the command that writes it first")
    return path.read_text(encoding="utf-8").strip("\n")


#: The generic figures; a method's report adds its own (the docs updater joins them).
FIGURES: dict[str, Figure] = {
    "table": table_figure,
    "calibration": calibration_figure,
    "main_table": main_table_figure,
    "pooled_table": pooled_table_figure,
    "revisions_table": revisions_table_figure,
    "ci": ci_figure,
    "mean": mean_figure,
    "hits": hits_figure,
    "paired": paired_figure,
    "hits_on": hits_on_figure,
    "cell": cell_figure,
    "across": across_figure,
    "same_answers": same_answers_figure,
}
