"""``ace-lab liveness``: how often each adaptive decision took each value, per committed study.

Each method report with a ``liveness`` module (``<report>.liveness.LIVENESS_TABLE``) reads its
own methods' records into decision rows and their frequency table (:mod:`ace_lab.eval.liveness`);
:func:`study_liveness` joins the reports' tables of one study, :func:`write_studies` writes it as
``results/<study>/liveness.csv`` and ``liveness.md`` (one file per slice, a ``method`` column),
and :data:`FIGURES` gives ``docs/results.md`` its generated parts:

- ``liveness_table [inert] METHOD...``: one line per (slice, method, mechanism) of those
  methods over :data:`LIVENESS_STUDIES` (its number of questions, distinct values, the most
  frequent value with its share, inert or not; ``inert``: the inert ones only);
- ``liveness_count WHO MECHANISM VALUE [STUDY]``: ``k of n``, how many of the questions a method
  (or every method of a report: ``ACE``, ``ArcRAG`` or ``MOSAIC``) decided had that value.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from functools import cache
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType

import pandas as pd

from ace_lab.eval.liveness import COLUMNS, liveness_markdown, liveness_summary, write_liveness
from ace_lab.registry.plugins import reports as plugin_reports

#: The committed studies the liveness tables are made for.
LIVENESS_STUDIES = (
    "hotpotqa_dev_sample200-n20-s0",
    "2wikimultihopqa_hipporag1000-n20-s0",
    "musique_dev_sample292-n10-s0",
    "graphragbench_medical-n20-s0",
    "graphragbench_novel-n20-s0",
    "ultradomain_mix-n8-s0",
)
#: How the docs' tables name the studies.
SLICE_NAMES = {
    "hotpotqa_dev_sample200-n20-s0": "HotpotQA",
    "2wikimultihopqa_hipporag1000-n20-s0": "2Wiki",
    "musique_dev_sample292-n10-s0": "MuSiQue",
    "graphragbench_medical-n20-s0": "Medical",
    "graphragbench_novel-n20-s0": "Novel",
    "ultradomain_mix-n8-s0": "UltraDomain",
}


@cache
def _liveness_module(report: str) -> ModuleType | None:
    if not report or find_spec(f"{report}.liveness") is None:
        return None
    return import_module(f"{report}.liveness")


def study_liveness(frame: pd.DataFrame, reports: Iterable[str] | None = None) -> pd.DataFrame:
    """The frequency table of one study's records: each report package's (``reports``, default
    every plugin's, :func:`ace_lab.registry.plugins.reports`) ``liveness.LIVENESS_TABLE`` over
    the methods it owns, in that order."""
    tables = []
    for report in plugin_reports().values() if reports is None else reports:
        module = _liveness_module(report)
        if module is not None and not frame.empty:
            tables.append(module.LIVENESS_TABLE(frame))
    tables = [t for t in tables if not t.empty]
    if not tables:
        return pd.DataFrame(columns=["method", *COLUMNS])
    return pd.concat(tables, ignore_index=True)


def _records(results_dir: Path, study: str) -> pd.DataFrame:
    from ace_lab.eval.reporting.docs_numbers import study_records

    return study_records(Path(results_dir), study)


def studies_liveness(
    results_dir: Path,
    studies: Iterable[str] = LIVENESS_STUDIES,
    reports: Iterable[str] | None = None,
) -> pd.DataFrame:
    """:func:`study_liveness` of each study under ``results_dir`` (those it holds), a ``slice``
    column first (computed once per process and arguments; a copy each call)."""
    key = (Path(results_dir), tuple(studies), None if reports is None else tuple(reports))
    return _studies_liveness(*key).copy()


@cache
def _studies_liveness(
    results_dir: Path, studies: tuple[str, ...], reports: tuple[str, ...] | None
) -> pd.DataFrame:
    tables = []
    for study in studies:
        if not (Path(results_dir) / study).is_dir():  # a results folder without this study
            continue
        table = study_liveness(_records(results_dir, study), reports)
        table.insert(0, "slice", study)
        tables.append(table)
    if not tables:
        return pd.DataFrame(columns=["slice", "method", *COLUMNS])
    return pd.concat(tables, ignore_index=True)


def write_studies(results_dir: Path, studies: Iterable[str] = LIVENESS_STUDIES) -> list[Path]:
    """Write each study's ``liveness.csv`` and ``liveness.md``; the paths written."""
    written = []
    for study in studies:
        table = study_liveness(_records(results_dir, study))
        written += write_liveness(table, Path(results_dir) / study).values()
    return written


def cmd_liveness(args: argparse.Namespace) -> int:
    """Write the liveness tables of the committed studies (or ``--studies``) from the records."""
    from ace_lab.config import load_settings

    results_dir = Path(load_settings().results_dir)
    for path in write_studies(results_dir, args.studies or LIVENESS_STUDIES):
        print(path)
    return 0


# ------------------------------------------------------------------------------ docs parts
#: The marker word that keeps only the inert mechanisms in ``liveness_table``.
ONLY_INERT = "inert"


def _slices(results_dir: Path, study: str | None) -> pd.DataFrame:
    """The liveness rows of every study, or of ``study`` (a full name or a docs short name)."""
    from ace_lab.eval.reporting.docs_numbers import STUDIES

    table = studies_liveness(results_dir)
    return table if study is None else table[table["slice"] == STUDIES.get(study, study)]


def _docs_error(text: str) -> Exception:
    from ace_lab.eval.reporting.docs_numbers import DocsError

    return DocsError(text)


def liveness_table_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``liveness_table [inert] METHOD...``: the summary of those methods over every study, in
    the order given (``inert`` first: only the inert mechanisms)."""
    only_inert = bool(args) and args[0] == ONLY_INERT
    methods = args[1:] if only_inert else args
    table = _slices(results_dir, None)
    summary = liveness_summary(table[table["method"].isin(methods)])
    if only_inert and not summary.empty:
        summary = summary[summary["inert"]]
    if summary.empty:
        raise _docs_error(f"no liveness rows for {', '.join(methods)} in {LIVENESS_STUDIES}")
    order = {m: i for i, m in enumerate(methods)}
    summary = summary.sort_values("method", key=lambda s: s.map(order), kind="stable")
    summary["slice"] = summary["slice"].map(lambda s: SLICE_NAMES.get(s, s))
    return liveness_markdown(summary.reset_index(drop=True))


def liveness_count_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``liveness_count WHO MECHANISM VALUE [STUDY]``: ``k of n``, the questions with that
    value of all those the mechanism decided, over every study (or ``STUDY``: a full name or
    a docs short name such as ``hotpot``); ``WHO`` is a method name or a plugin's title
    (:func:`ace_lab.registry.plugins.reports`: every method of its report), a mechanism's
    spaces written ``+`` (``sufficiency+verdicts``)."""
    who, mechanism, value, *study = args
    table = _slices(results_dir, study[0] if study else None)
    if who in plugin_reports():
        report = plugin_reports()[who]
        table = table[table["method"].map(lambda m: _report_of(m) == report)]
    else:
        table = table[table["method"] == who]
    mechanism = mechanism.replace("+", " ")  # a marker's arguments are split at spaces
    rows = table[table["mechanism"] == mechanism]
    if rows.empty:
        raise _docs_error(f"no {mechanism!r} decisions of {who!r} in {study or LIVENESS_STUDIES}")
    total = int(rows.drop_duplicates(["slice", "method"])["n"].sum())
    hits = int(rows.loc[rows["value"] == value, "count"].sum())
    return f"{hits} of {total}"


def _report_of(method: str) -> str:
    from ace_lab.registry import spec

    try:
        return spec(method).report
    except (KeyError, ValueError):  # a name this registry no longer knows: no report
        return ""


#: The docs parts this module makes (``ace-lab docs`` joins them to the others).
FIGURES: dict[str, Callable[[Path, tuple[str, ...]], str]] = {
    "liveness_table": liveness_table_figure,
    "liveness_count": liveness_count_figure,
}
