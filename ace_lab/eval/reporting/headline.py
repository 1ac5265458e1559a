"""The headline table of a task: the core methods at the shared budget, one glance per slice.

One row per core method, per slice the reader's score with its interval and n and the evidence
metric (read without a reader or a judge) with its interval, then the mean context the reader
read and the mean input tokens a question cost over every slice, and the verdict of the claim
whose first run is the method (``results/verdicts.csv``). A method without a run on a slice has
an empty cell there and says so in its note, never a made-up or zero score. Every variant,
ablation and one-off run stays in the main table (``results/main_table.md``), the appendix.
``python -m ace_lab.eval.reporting.headline`` writes ``results/<task>.{csv,md,tex}`` and the
figure ``figures/<task>.{png,pdf}`` (the same numbers, double column, one panel per slice).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ace_lab.eval.reporting.evidence import metric_values
from ace_lab.eval.statistics import Interval
from ace_lab.eval.statistics.proportions import mean_interval
from ace_lab.viz.names import dataset_name, display_name


@dataclass(frozen=True)
class CoreMethod:
    """A core method of a headline table: the answered run and the evidence-only run that stand
    for it (the same method at the shared budget; "": the answered run's own contexts), and a
    note where they differ from it."""

    answered: str
    evidence: str = ""
    note: str = ""


@dataclass(frozen=True)
class SliceRecords:
    """One slice of a headline table: its label, answered records and evidence-only records."""

    label: str
    answered: pd.DataFrame
    evidence: pd.DataFrame


def _runs(frame: pd.DataFrame, method: str) -> pd.DataFrame:
    if frame.empty or "method" not in frame:
        return frame
    return frame[frame["method"] == method].drop_duplicates("id", keep="last")


def _interval(records: pd.DataFrame, metric: str) -> Interval | None:
    values = metric_values(records, metric) if len(records) else pd.Series(dtype=float)
    return mean_interval(values.to_numpy()) if len(values) else None


def _mean(frames: Sequence[pd.DataFrame], column: str) -> float:
    values = [pd.to_numeric(f[column], errors="coerce") for f in frames if column in f]
    joined = pd.concat(values).dropna() if values else pd.Series(dtype=float)
    return float(joined.mean()) if len(joined) else math.nan


def headline_table(
    slices: Sequence[SliceRecords],
    methods: Sequence[CoreMethod],
    score: tuple[str, str],
    evidence: tuple[str, str],
    verdicts: Mapping[str, str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table (one row per method, display names, one column pair per slice) and its points
    (method, slice, metric, mean, low, high, n: what the figure draws). ``score`` and
    ``evidence`` are (record column, label) of the reader's metric and the evidence metric;
    ``verdicts`` maps a run name to its claim's verdict text."""
    rows, points = [], []
    for method in methods:
        name = display_name(method.answered)
        row: dict[str, object] = {"method": name}
        answered_frames, missing = [], []
        for part in slices:
            answered = _runs(part.answered, method.answered)
            kept_by = _runs(part.evidence, method.evidence) if method.evidence else answered
            for (column, label), records in ((score, answered), (evidence, kept_by)):
                found = _interval(records, column)
                text = "" if found is None else str(found)
                if found is not None and label == score[1]:
                    text += f" (n {found.n})"
                row[f"{part.label} {label}"] = text
                if found is not None:
                    points.append(
                        {"method": name, "slice": part.label, "metric": label}
                        | {"mean": found.mean, "low": found.low, "high": found.high, "n": found.n}
                    )
            if len(answered):
                answered_frames.append(answered)
            else:
                missing.append(part.label)
        row["context tokens"] = _mean(answered_frames, "context_tokens")
        row["input tokens"] = _mean(answered_frames, "input_tokens")
        found_verdicts = [(verdicts or {}).get(run) for run in (method.answered, method.evidence)]
        row["verdict"] = next((v for v in found_verdicts if v), "")
        notes = [f"no run on {', '.join(missing)}"] if missing else []
        row["note"] = "; ".join([*notes, method.note] if method.note else notes)
        rows.append(row)
    table = pd.DataFrame(rows)
    for column in ("context tokens", "input tokens"):  # a method with no answered run: ""
        table[column] = table[column].map(lambda v: "" if math.isnan(v) else str(round(v)))
    return table, pd.DataFrame(points)


def verdict_words(path: Path, slices: Sequence[str] = ()) -> dict[str, str]:
    """Run name → ``"<verdict> (<claim>)"`` for the first claim each run is the A side of,
    among the claims measured on any of ``slices`` (display names; empty: every claim)."""
    if not Path(path).is_file():
        return {}
    table = pd.read_csv(path, keep_default_na=False)
    words: dict[str, str] = {}
    for row in table.itertuples():
        measured_on = {part.strip() for part in str(row.slices).split(",")}
        if not slices or measured_on & set(slices):
            words.setdefault(str(row.A), f"{row.verdict} ({row.claim})")
    return words


def slice_label(study: str) -> str:
    """A study's slice as a column shows it: its data set's display name."""
    return dataset_name(study.split("-n", 1)[0])


@dataclass(frozen=True)
class Task:
    """A headline table's task: its studies, core methods and metrics."""

    name: str
    title: str
    studies: tuple[str, ...]
    methods: tuple[CoreMethod, ...]
    score: tuple[str, str]
    evidence: tuple[str, str]


#: Multi-hop QA: reader F1 and answer coverage of the context (the evidence-only study at the
#: shared budget), the core methods of the three papers and their baselines.
MULTIHOP_QA = Task(
    "headline_qa",
    "Multi-hop QA",
    (
        "hotpotqa_dev_sample200-n20-s0",
        "2wikimultihopqa_hipporag1000-n20-s0",
        "musique_dev_sample292-n10-s0",
    ),
    (
        CoreMethod("naive", "naive:b1500"),
        CoreMethod("hirag", "hirag:b1500"),
        CoreMethod("hipporag", "hipporag:b1500"),
        CoreMethod("graphrag", "graphrag:b1500"),
        CoreMethod("ace-full:b1500", "ace-full:b1500"),
        CoreMethod(
            "ace-adaptive",
            "ace-adaptive:b1500",
            "F1 from its answered run at its own adaptation budget, coverage at the shared one",
        ),
        CoreMethod(
            "arcrag:strict+grammar+patterns+r1p1",
            note="the stratified sample of each slice; coverage from its answered contexts",
        ),
        CoreMethod("mosaic", "mosaic:b1500"),
    ),
    ("f1", "F1"),
    ("answer_coverage", "coverage"),
)
#: GraphRAG-Bench: its judged Answer Correctness is uninformative with the local judge (its
#: calibration, docs/results.md), so the table reads the reader's token F1 against the gold
#: sentences and the passage recall of the gold chunks, neither of which needs a judge.
GRAPHRAG_BENCH = Task(
    "headline_graphragbench",
    "GraphRAG-Bench",
    ("graphragbench_medical-n20-s0", "graphragbench_novel-n20-s0"),
    (
        CoreMethod("naive", "naive:b1500"),
        CoreMethod("hirag", "hirag:b1500"),
        CoreMethod("hipporag@hierarchical", "hipporag:b1500@hierarchical"),
        CoreMethod("graphrag", "graphrag:b1500"),
        CoreMethod("ace-full:b1500", "ace-full:b1500"),
        CoreMethod(
            "ace-adaptive",
            "ace-adaptive:b1500",
            "F1 from its answered run at its own adaptation budget, recall at the shared one",
        ),
        CoreMethod("mosaic", "mosaic:b1500"),
    ),
    ("f1", "token F1"),
    ("passage_recall", "passage recall"),
)
TASKS: tuple[Task, ...] = (MULTIHOP_QA, GRAPHRAG_BENCH)


def task_table(task: Task, results_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The headline table of ``task`` and its points from the records under ``results_dir``
    (studies without records are left out; the evidence-only study of each is
    ``<study>-evidence``)."""
    from dataclasses import replace

    from ace_lab.config import load_settings
    from ace_lab.eval.studies.runner import EVIDENCE_SUFFIX
    from ace_lab.eval.studies.study import load_results

    settings = replace(load_settings(), results_dir=Path(results_dir))
    slices = []
    for study in task.studies:
        if not (Path(results_dir) / study).is_dir():
            continue
        evidence_dir = Path(results_dir) / f"{study}{EVIDENCE_SUFFIX}"
        evidence = (
            load_results(evidence_dir.name, settings) if evidence_dir.is_dir() else pd.DataFrame()
        )
        slices.append(SliceRecords(slice_label(study), load_results(study, settings), evidence))
    labels = [part.label for part in slices]
    verdicts = verdict_words(Path(results_dir) / "verdicts.csv", labels)
    return headline_table(slices, task.methods, task.score, task.evidence, verdicts)
