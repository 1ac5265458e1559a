"""Composed methods against their parts: ``source>ace-…`` paired with the source alone and with
the ACE method alone, on the questions all of them answered (from the records).

One row per (slice, composition, part): questions paired, the mean accuracy of each (token F1 on
the QA slices, judged Answer Correctness on GraphRAG-Bench: the outcome frames of
:mod:`ace_lab.eval.reporting.outcomes`), the difference with its seeded paired-bootstrap 95 %
interval and exact two-sided sign-flip p-value, Holm-adjusted over every row of the table (one
family: "does composing change anything anywhere"), EM where the slice has it, and the mean input
tokens per question of each (the cold-cache cost the records hold), so a gain is read with what
it costs. ``python -m ace_lab.ace.report.composition`` (in ``make reproduce``) writes
``results/09_composition.{csv,md,tex}``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ace_lab.config import load_settings
from ace_lab.eval.graphragbench.cells import calibration_cell, score_identities
from ace_lab.eval.judging.calibration import (
    CALIBRATION_NAME,
    JUDGING_FOLDER,
    load_calibrations,
)
from ace_lab.eval.reporting.export import export_table
from ace_lab.eval.reporting.outcomes import GRB_SCORES, SLICES, ChooserSlice, slice_outcomes
from ace_lab.eval.statistics import holm, paired_bootstrap
from ace_lab.eval.studies.jsonl import read_jsonl
from ace_lab.registry import parse

#: The exported table's name under ``results/``.
TABLE = "09_composition"
COMMAND = "python -m ace_lab.ace.report.composition"
COLUMNS = (
    "slice", "metric", "judge", "composition", "part", "role", "n", "composed", "part alone", "Δ",
    "Δ [95% CI]", "p", "p (Holm)", "EM composed", "EM part", "input tok composed",
    "input tok part",
)  # fmt: skip


def parts_of(name: str) -> tuple[str, str]:
    """(source, ACE method) of composition ``name``: ``mosaic>ace-full`` → (mosaic, ace-full)."""
    parsed = parse(name)
    source = name.split(">", 1)[0]
    return source, parsed.policy


def _mean(values: pd.Series) -> float:
    values = values.dropna()
    return float(values.astype(float).mean()) if len(values) else float("nan")


def composition_table(
    outcomes: pd.DataFrame,
    compositions: Iterable[str] | None = None,
    *,
    label: str = "",
    metric: str = "f1",
    judge: str = "",
) -> pd.DataFrame:
    """Each composition of one slice's outcome frame (``id``, ``method``, ``accuracy``, ``em``,
    ``tokens``) against its source and its ACE method; ``compositions`` defaults to every
    method name with a ``>``; ``judge`` is the judged metric's calibration cell ("" for F1).
    p (Holm) is over this table's rows."""
    by_method = {m: frame.set_index("id") for m, frame in outcomes.groupby("method")}
    names = compositions if compositions is not None else sorted(m for m in by_method if ">" in m)
    rows = []
    for name in names:
        if name not in by_method:
            continue
        composed = by_method[name]
        for part, role in zip(parts_of(name), ("source", "policy"), strict=True):
            if part not in by_method:
                continue
            ids = composed.index.intersection(by_method[part].index)
            a, b = composed.loc[ids], by_method[part].loc[ids]
            test = paired_bootstrap(a["accuracy"].to_numpy(float), b["accuracy"].to_numpy(float))
            rows.append(
                {
                    "slice": label,
                    "metric": metric,
                    "judge": judge,
                    "composition": name,
                    "part": part,
                    "role": role,
                    "n": len(ids),
                    "composed": _mean(a["accuracy"]),
                    "part alone": _mean(b["accuracy"]),
                    "Δ": test.mean_diff,
                    "Δ [95% CI]": test.interval,
                    "p": test.p_value,
                    # exact match means nothing against a sentence-long gold answer
                    "EM composed": _mean(a["em"]) if metric == "f1" else float("nan"),
                    "EM part": _mean(b["em"]) if metric == "f1" else float("nan"),
                    "input tok composed": _mean(a["tokens"]),
                    "input tok part": _mean(b["tokens"]),
                }
            )
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    return with_holm(table)


def with_holm(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with ``p (Holm)`` adjusted over its rows (NaN p, e.g. one pair, stays NaN)."""
    table = table.copy()
    known = table["p"].notna()
    table["p (Holm)"] = np.nan
    if known.any():
        table.loc[known, "p (Holm)"] = holm(table.loc[known, "p"].astype(float).tolist())
    return table[list(COLUMNS)]


def judge_cell(results_dir: Path | str, chosen: ChooserSlice) -> str:
    """The calibration of the judge(s) that scored a judged slice (by judge identity: model,
    server build and prompt), e.g. ``0.62 (n=32) judge uninformative``; "" for an F1 slice."""
    if not chosen.judged:
        return ""
    path = Path(results_dir) / chosen.study / GRB_SCORES
    lines = pd.DataFrame(read_jsonl(path) if path.is_file() else [])
    calibrations = load_calibrations(Path(results_dir) / JUDGING_FOLDER / CALIBRATION_NAME)
    return calibration_cell(chosen.metric, calibrations, score_identities(lines, chosen.metric))


def composition_report(
    results_dir: Path | str, slices: Sequence[ChooserSlice] = SLICES
) -> pd.DataFrame:
    """Every composition the committed slices hold, against its parts, Holm over all rows;
    a judged slice's rows name its judge's calibration."""
    tables = [
        composition_table(
            slice_outcomes(results_dir, s),
            label=s.label,
            metric=s.metric,
            judge=judge_cell(results_dir, s),
        )
        for s in slices
        if (Path(results_dir) / s.study).is_dir()
    ]
    tables = [t for t in tables if not t.empty]
    if not tables:
        return pd.DataFrame(columns=list(COLUMNS))
    return with_holm(pd.concat(tables, ignore_index=True))  # Holm again, over every slice


def view(table: pd.DataFrame) -> pd.DataFrame:
    """The table as the notebook and the docs show it: metric named, means rounded."""
    shown = table.drop(columns=["Δ"]).copy()
    shown["metric"] = shown["metric"].map({"f1": "F1"}).fillna("judged ACC")
    for column in ("input tok composed", "input tok part"):
        shown[column] = shown[column].round().astype("Int64")
    return shown.round(3)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results-dir", type=Path, help="default: the settings' results_dir")
    args = parser.parse_args(argv)
    results_dir = args.results_dir or Path(load_settings().results_dir)
    for path in export_table(view(composition_report(results_dir)), TABLE, results_dir).values():
        print(path)


if __name__ == "__main__":
    main()
