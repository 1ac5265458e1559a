"""Facts read off a study's records, manifest and verdicts for its README: figure kinds of
:mod:`ace_lab.eval.reporting.docs_numbers` (:data:`FIGURES`). How many questions some methods
answered, at which slice positions a method's records hold a value (which questions were served
from the response cache), on how many questions two runs built the same context, a column's total
over a method's records, which answers a judge build gave a verdict on, on which day methods
ran, an evidence-only study's table, an answered study's accuracy (judged included) and two
readers on the same contexts, so a README's "all 20 questions", "questions 11–20", "3 model
calls" or "rerun on ..." is computed, never typed."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd

from ace_lab.config import load_settings
from ace_lab.eval.judging.semantic import SEMANTIC_FILE, judge_cell, load_semantic, with_verdicts
from ace_lab.eval.reporting.docs_numbers import STUDIES, DocsError, Figure, study_records
from ace_lab.eval.reporting.evidence import evidence_table
from ace_lab.eval.reporting.export import to_markdown
from ace_lab.eval.reporting.readers import reader_comparison
from ace_lab.eval.reporting.tables import main_table, method_rows
from ace_lab.eval.statistics.proportions import wilson_interval
from ace_lab.eval.studies.study import MANIFEST


def _rows(results_dir: Path, study: str, method: str) -> pd.DataFrame:
    rows = method_rows(study_records(Path(results_dir), study), method)
    if rows.empty:
        raise DocsError(f"no records of {method!r} in study {study!r}")
    return rows


def questions_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``questions STUDY METHOD...``: how many questions each named method answered, one number
    for all; a :class:`DocsError` where they differ, so a sentence such as "all 20 questions,
    every method" cannot outlive a method that answered fewer."""
    study, *methods = args
    counts = {method: _rows(results_dir, study, method)["id"].nunique() for method in methods}
    if len(set(counts.values())) != 1:
        raise DocsError(f"{study}: the methods answered different numbers of questions: {counts}")
    return str(counts[methods[0]])


def position_ranges(positions: list[int]) -> str:
    """Sorted whole numbers as runs: ``1–10``, ``1–3, 5``."""
    runs: list[list[int]] = []
    for position in sorted(set(positions)):
        if runs and position == runs[-1][-1] + 1:
            runs[-1].append(position)
        else:
            runs.append([position])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def _matches(column: pd.Series, value: str) -> pd.Series:
    """Where ``column`` equals ``value``: as numbers where ``value`` is one, else as text."""
    try:
        return pd.to_numeric(column, errors="coerce") == float(value)
    except ValueError:
        return column.astype(str) == value


def positions_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``positions STUDY METHOD [COLUMN=VALUE]``: the slice positions (counted from 1) of the
    method's questions, or of those whose record's COLUMN equals VALUE (``cache_hits=0``,
    ``model_calls=0``), as :func:`position_ranges`."""
    study, method, *condition = args
    rows = _rows(results_dir, study, method)
    for column, _, value in (c.partition("=") for c in condition):
        if column not in rows:
            raise DocsError(f"{study}: the records of {method!r} have no {column!r}")
        rows = rows[_matches(rows[column], value)]
    if rows.empty:
        raise DocsError(f"{study}: no record of {method!r} has {' '.join(condition)}")
    return position_ranges([int(p) + 1 for p in rows["position"]])


def _pieces(context_ids: object) -> set[str]:
    """A record's context pieces; none where it holds no list (a failed question)."""
    return set(context_ids) if isinstance(context_ids, list | tuple) else set()


def same_contexts_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``same_contexts STUDY_A METHOD_A STUDY_B METHOD_B``: ``k of n``, the questions both runs
    answered whose contexts hold the same pieces (``context_ids``, in any order)."""
    study_a, method_a, study_b, method_b = args
    a = _rows(results_dir, study_a, method_a).set_index("id")["context_ids"]
    b = _rows(results_dir, study_b, method_b).set_index("id")["context_ids"]
    ids = a.index.intersection(b.index)
    same = sum(_pieces(a.loc[i]) == _pieces(b.loc[i]) for i in ids)
    return f"{same} of {len(ids)}"


def run_date_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``run_date STUDY METHOD...``: the day (UTC) the named methods' last runs started, from
    the study's ``manifest.json``: one date where all agree, else each (``2026-11-30 and
    2026-12-01``)."""
    study, *methods = args
    path = Path(results_dir) / STUDIES.get(study, study) / MANIFEST
    if not path.is_file():
        raise DocsError(f"no {path}")
    entries = json.loads(path.read_text(encoding="utf-8")).get("methods", {})
    days = set()
    for method in methods:
        if method not in entries:
            raise DocsError(f"{path}: no method {method!r}")
        entry = entries[method]
        days.add(str((entry.get("last_run") or {}).get("started") or entry["started"])[:10])
    ordered = sorted(days)
    return ordered[0] if len(ordered) == 1 else ", ".join(ordered[:-1]) + f" and {ordered[-1]}"


def total_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``total STUDY METHOD COLUMN``: the sum of ``COLUMN`` over the method's records (model
    calls, input tokens, tokens served from the server's prefix cache), with thousands
    separators; a :class:`DocsError` where no record holds the column."""
    study, method, column = args
    rows = _rows(results_dir, study, method)
    values = pd.to_numeric(rows.get(column, pd.Series(dtype=float)), errors="coerce").dropna()
    if values.empty:
        raise DocsError(f"{study}: no record of {method!r} holds {column!r}")
    total = float(values.sum())
    return f"{total:,.0f}" if total.is_integer() else f"{total:,.1f}"


def judged_positions_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``judged_positions STUDY METHOD BUILD``: the slice positions (as
    :func:`position_ranges`) of the method's answers that have a verdict in the study's
    ``semantic/verdicts.jsonl`` from a judge whose identity ends with ``BUILD`` (a server build
    tag, ``llama-server:3fc97ed78579``), so "judged again by the AVX2 build" names the answers
    the verdicts hold."""
    study, method, build = args
    path = Path(results_dir) / STUDIES.get(study, study) / SEMANTIC_FILE
    if not path.is_file():
        raise DocsError(f"no {path}")
    lines = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line)
    ids = {
        line["id"]
        for line in lines
        if line.get("method") == method and str(line.get("judge_identity", "")).endswith(build)
    }
    rows = _rows(results_dir, study, method)
    judged = rows[rows["id"].isin(ids)]
    if judged.empty:
        raise DocsError(f"{path}: no verdict on {method!r} by a judge ending {build!r}")
    return position_ranges([int(p) + 1 for p in judged["position"]])


def evidence_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``evidence STUDY METHOD...``: the evidence table of an evidence-only study as ``ace-lab
    run --evidence-only`` prints it (n, each evidence metric with its 95 % interval, the mean
    costs), one row per named method, in that order."""
    study, *methods = args
    for method in methods:
        _rows(results_dir, study, method)  # a method without records is named, not left blank
    return to_markdown(evidence_table(study_records(Path(results_dir), study), methods))


def answered_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``answered STUDY METHOD...``: an answered study's accuracy, one row per named method in
    that order: n, the reader, EM and F1 with their 95 % intervals (as ``ace-lab report`` prints
    them) and the semantic-equivalence judge's accuracy on the answers it judged (Wilson
    interval; ``ace-lab semantic``) with that judge's calibration."""
    study, *methods = args
    for method in methods:
        _rows(results_dir, study, method)
    records = study_records(Path(results_dir), study)
    table = main_table(records, methods).set_index("method")
    name = STUDIES.get(study, study)
    settings = replace(load_settings(), results_dir=Path(results_dir))
    judged = with_verdicts(records, load_semantic(name, settings))
    rows = []
    for method in methods:
        row = table.loc[method]
        mine = judged[(judged["method"] == method) & judged["semantic"].notna()]
        hits, n = int(mine["semantic"].sum()), len(mine)
        low, high = wilson_interval(hits, n) if n else (float("nan"),) * 2
        rows.append(
            {
                "method": method,
                "n": int(row["n"]),
                "reader": row["reader"],
                "EM [95% CI]": row["EM [95% CI]"],
                "F1 [95% CI]": row["F1 [95% CI]"],
                "semantic accuracy [95% CI]": (
                    f"{hits / n:.3f} [{low:.3f}, {high:.3f}] (judged {n})" if n else "not judged"
                ),
                "judge calibration": judge_cell(mine, settings=settings) if n else "",
            }
        )
    return to_markdown(pd.DataFrame(rows))


def readers_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``readers STUDY REREAD METHOD``: METHOD's answers in STUDY against the same contexts
    re-answered in REREAD (``ace-lab reread``), on the questions both hold: each reader's
    format compliance, EM, F1, the paired F1 difference and its answer call's tokens
    (:func:`~ace_lab.eval.reporting.readers.reader_comparison`)."""
    study, reread, method = args
    for name in (study, reread):
        _rows(results_dir, name, method)
    records = [study_records(Path(results_dir), name) for name in (study, reread)]
    try:
        return to_markdown(reader_comparison(*records, method))
    except ValueError as error:
        raise DocsError(str(error)) from None


FIGURES: dict[str, Figure] = {
    "answered": answered_figure,
    "readers": readers_figure,
    "evidence": evidence_figure,
    "questions": questions_figure,
    "positions": positions_figure,
    "same_contexts": same_contexts_figure,
    "run_date": run_date_figure,
    "total": total_figure,
    "judged_positions": judged_positions_figure,
}
