"""What the results notebooks (06–08) share: reading studies, saying what produced them and what
is missing, showing and exporting tables, and placeholder panels for figures without data.

Notebooks keep the narrative and call these; this keeps the bookkeeping in one tested place.
``open_report(results_dir, tables_dir)`` is each notebook's setup, and
``report.load_studies(studies, methods)`` reads every study it names into a :class:`StudyData`
(records, manifest, data set label), printing provenance and the commands for what is missing.
The documentation's copy of the main table is :mod:`ace_lab.eval.reporting.docs_numbers`'s.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from ace_lab.config import Settings, load_settings
from ace_lab.eval.judging import judge_command, run_command
from ace_lab.eval.reporting.export import export_table, to_markdown
from ace_lab.eval.studies.study import MANIFEST, load_results, study_dir


@dataclass(frozen=True, eq=False)
class StudyData:
    """One loaded study: its records, its manifest and the label its data set goes by."""

    study: str
    label: str
    manifest: dict[str, Any] = field(repr=False)
    df: pd.DataFrame = field(repr=False)

    @property
    def model(self) -> str:
        """The answering model the manifest names ("?" without one)."""
        return str(self.manifest.get("model", "?"))

    @property
    def title(self) -> str:
        """``<label>: <study>, model <model>``, the heading of the study's tables."""
        return f"{self.label}: {self.study}, model {self.model}"

    @property
    def methods(self) -> set[str]:
        return set(self.df["method"])

    def has(self, *names: str) -> bool:
        """Whether every one of ``names`` has results in this study."""
        return set(names) <= self.methods

    def present(self, names: Iterable[str]) -> list[str]:
        """Those of ``names`` with results, in the order given."""
        have = self.methods
        return [m for m in names if m in have]


def open_report(results_dir: str | Path = "", tables_dir: str | Path = "") -> StudyReport:
    """A notebook's setup: settings with ``results_dir`` (resolved against the working
    directory) when given, else ``settings.results_dir``; prints where results are read."""
    settings = load_settings()
    if results_dir:
        settings = replace(settings, results_dir=Path(results_dir).resolve())
    print("results:", settings.results_dir)
    return StudyReport(settings, tables_dir)


class StudyReport:
    """Read studies under ``settings.results_dir``; export tables beside them, or under
    ``tables_dir/<study>`` when given (so smoke runs never overwrite committed tables)."""

    def __init__(self, settings: Settings, tables_dir: str | Path = "") -> None:
        self.settings = settings
        self.tables_dir = Path(tables_dir) if tables_dir else None

    def show(self, table: pd.DataFrame, title: str = "") -> None:
        """Display a table as markdown (the same text ``export_table`` writes to <name>.md)."""
        from IPython.display import Markdown, display

        heading = f"**{title}**\n\n" if title else ""
        display(Markdown(heading + to_markdown(table)))

    def export(self, table: pd.DataFrame, name: str, study: str | None = None) -> dict[str, Path]:
        """Write csv/md/tex next to the study's results (or the results root for ``None``)."""
        if self.tables_dir is not None:
            directory = self.tables_dir / study if study else self.tables_dir
        else:
            root = Path(self.settings.results_dir)
            directory = study_dir(study, self.settings) if study else root
        paths = export_table(table, name, directory)
        print("exported", paths["csv"].with_suffix(""), "(.csv .md .tex)")
        return paths

    def load_study(self, study: str, wanted: list[str]) -> pd.DataFrame | None:
        """A study's records (None if it has none); prints the command for what is missing."""
        print(f"== {study}")
        directory = study_dir(study, self.settings)
        df = load_results(study, self.settings) if directory.is_dir() else pd.DataFrame()
        if df.empty or "method" not in df:
            print(f"  no results at {directory}")
            print(f"  make them: {run_command(wanted, study, self.settings)}")
            return None
        missing = [m for m in wanted if m not in set(df["method"])]
        if missing:
            print(f"  no results for {', '.join(missing)}")
            print(f"  make them: {run_command(missing, study, self.settings)}")
        return df

    def load_studies(
        self, studies: Iterable[str], wanted: Sequence[str], *, require: Iterable[str] = ()
    ) -> dict[str, StudyData]:
        """Every study of ``studies`` with results, by name, in order: loaded and described
        (:meth:`load_study`, :meth:`describe`) and labelled (:func:`dataset_label`).

        A study without any of ``require`` (when given) is reported and left out.
        """
        required = list(require)
        found: dict[str, StudyData] = {}
        for study in studies:
            df = self.load_study(study, list(wanted))
            if df is None:
                continue
            manifest = self.describe(study, df)
            if required and not set(required) & set(df["method"]):
                print(f"  none of {required} in this study")
                continue
            label = dataset_label(manifest, study, {f.label for f in found.values()})
            found[study] = StudyData(study, label, manifest, df)
        return found

    def command(self, methods: Sequence[str], studies: Sequence[str]) -> str:
        """The ``ace-lab run`` command for ``methods`` in the first of ``studies``."""
        return run_command(methods, studies[0] if studies else "<study>", self.settings)

    def missing(self, study: str, methods: Sequence[str], what: str) -> None:
        """Print that ``what`` is missing from ``study`` and the command that makes it."""
        print(f"{study}: {what}; make it: {run_command(methods, study, self.settings)}")

    def print_judge_commands(self, study: str, pairs: Iterable[Sequence[str]]) -> None:
        """Print the commands that make ``pairs``' answers in ``study`` and judge each pair."""
        pairs = [tuple(p) for p in pairs]
        methods = list(dict.fromkeys(m for pair in pairs for m in pair))
        print("  " + run_command(methods, study, self.settings))
        for a, b in pairs:
            print("  " + judge_command(study, a, b))

    def describe(self, study: str, df: pd.DataFrame) -> dict[str, Any]:
        """Print what produced a study (model, slice, n, commit) and return its manifest."""
        path = study_dir(study, self.settings) / MANIFEST
        manifest: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
        get = manifest.get
        counts = df.groupby("method", sort=False)["id"].nunique()
        answered = ", ".join(f"{m} {c}" for m, c in counts.items())
        if not manifest:
            print(f"  no {MANIFEST}: model and slice unknown")
            print(f"  questions answered: {answered}")
            return manifest
        print(
            f"  slice {get('slice_id', '?')}: dataset {get('dataset', '?')}, "
            f"n = {get('n', '?')}, seed {get('seed', '?')}, task {get('task', '?')}"
        )
        print(
            f"  model {get('model', '?')} [{get('model_identity', '?')}], "
            f"graph model {get('graph_model', '?')}"
        )
        dirty = " (uncommitted changes)" if get("git_dirty") else ""
        commit = str(get("git_commit") or "unknown")[:12]
        print(f"  commit {commit}{dirty}, updated {get('updated', '?')}")
        models = sorted({str(m.get("model")) for m in get("methods", {}).values()})
        if len(models) > 1:
            print(f"  warning: the methods were answered by different models: {models}")
        print(f"  questions answered: {answered}")
        return manifest


def dataset_label(manifest: dict[str, Any], study: str, used: set[str]) -> str:
    """The data set name for figure panels and columns (the study name if it repeats)."""
    label = manifest.get("dataset") or study
    return study if label in used else label


def placeholder(ax: plt.Axes, text: str) -> None:
    """An empty panel that says what is missing and how to make it."""
    wrapped = "\n".join(textwrap.fill(line, 60) for line in text.splitlines())
    ax.text(0.5, 0.5, wrapped, ha="center", va="center", fontsize=8, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])
