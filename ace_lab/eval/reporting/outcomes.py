"""Per-question outcomes of every method on a committed slice: accuracy and input tokens.

The chooser (``ace_lab.chooser``) and the Pareto figures read the same frame: one row per
question × method with ``slice``, ``id``, ``question``, ``method``, ``accuracy`` and ``tokens``
(the answer's input tokens over every LLM call). Accuracy is token F1 on the QA slices and
the judged Answer Correctness on GraphRAG-Bench (``graphragbench/scores.jsonl``, newest line per
answer; a method never scored there has no accuracy and is left out).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ace_lab.eval.studies.jsonl import read_jsonl, record_files

#: Columns of an outcome frame.
OUTCOME_COLUMNS = ["slice", "id", "question", "method", "accuracy", "em", "tokens"]
#: The judged-score file of a GraphRAG-Bench study.
GRB_SCORES = "graphragbench/scores.jsonl"


@dataclass(frozen=True)
class ChooserSlice:
    """A committed study the chooser is fitted and scored on."""

    study: str
    metric: str  # "f1" | "answer_correctness"
    label: str

    @property
    def judged(self) -> bool:
        return self.metric != "f1"


#: The committed slices, in table order.
SLICES: tuple[ChooserSlice, ...] = (
    ChooserSlice("hotpotqa_dev_sample200-n20-s0", "f1", "HotpotQA"),
    ChooserSlice("2wikimultihopqa_hipporag1000-n20-s0", "f1", "2Wiki"),
    ChooserSlice("musique_dev_sample292-n10-s0", "f1", "MuSiQue"),
    ChooserSlice("graphragbench_novel-n20-s0", "answer_correctness", "GRB-Novel"),
    ChooserSlice("graphragbench_medical-n20-s0", "answer_correctness", "GRB-Medical"),
)


def _records(directory: Path) -> pd.DataFrame:
    rows = [
        {
            "id": str(rec["id"]),
            "question": rec.get("question", ""),
            "method": rec["method"],
            "f1": rec.get("f1"),
            "em": rec.get("em"),
            "tokens": rec.get("input_tokens"),
        }
        for path in record_files(directory)
        for rec in read_jsonl(path)
    ]
    frame = pd.DataFrame(rows, columns=["id", "question", "method", "f1", "em", "tokens"])
    return frame.drop_duplicates(["method", "id"], keep="last")


def _judged(directory: Path) -> pd.DataFrame:
    path = directory / GRB_SCORES
    lines = read_jsonl(path) if path.is_file() else []
    frame = pd.DataFrame(
        [
            {"method": x["method"], "id": str(x["id"]), "judged": x.get("answer_correctness")}
            for x in lines
        ],
        columns=["method", "id", "judged"],
    )
    return frame.dropna(subset=["judged"]).drop_duplicates(["method", "id"], keep="last")


def slice_outcomes(results_dir: Path | str, chosen: ChooserSlice) -> pd.DataFrame:
    """Every method's per-question outcome on ``chosen`` (all record files the study holds)."""
    directory = Path(results_dir) / chosen.study
    records = _records(directory)
    if chosen.judged:
        records = records.merge(_judged(directory), on=["method", "id"], how="inner")
        records["accuracy"] = records["judged"].astype(float)
    else:
        records = records.dropna(subset=["f1"])
        records["accuracy"] = records["f1"].astype(float)
    records = records.dropna(subset=["tokens"])
    records["tokens"] = records["tokens"].astype(float)
    records["slice"] = chosen.label
    return records[OUTCOME_COLUMNS].reset_index(drop=True)


def main_methods(results_dir: Path | str) -> list[str]:
    """The main table's methods (``results/main_table.csv``), in its order."""
    return list(pd.read_csv(Path(results_dir) / "main_table.csv")["method"])


def grb_methods(results_dir: Path | str, chosen: ChooserSlice) -> list[str]:
    """The methods of a GraphRAG-Bench slice's main table: every judged method but the fixed
    and budget-matched variants (``name:variant``) and the compositions (``source>ace-…``, as
    the QA main table), in main-table order, then by name."""
    lines = read_jsonl(Path(results_dir) / chosen.study / GRB_SCORES)
    order = {m: i for i, m in enumerate(main_methods(results_dir))}
    judged = {x["method"] for x in lines if ":" not in x["method"] and ">" not in x["method"]}
    return sorted(judged, key=lambda m: (order.get(m, len(order)), m))


def candidates(results_dir: Path | str, chosen: ChooserSlice, frame: pd.DataFrame) -> list[str]:
    """The slice's main methods that hold an outcome on every question of the slice."""
    listed = grb_methods(results_dir, chosen) if chosen.judged else main_methods(results_dir)
    n = frame["id"].nunique()
    counts = frame.groupby("method")["id"].nunique()
    return [m for m in listed if counts.get(m, 0) == n]


def complete(frame: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    """``frame``'s rows of ``methods`` on the questions every one of them answered."""
    rows = frame[frame["method"].isin(methods)]
    per_id = rows.groupby("id")["method"].nunique()
    ids = set(per_id[per_id == len(methods)].index)
    rows = rows[rows["id"].isin(ids)].copy()
    order = {m: i for i, m in enumerate(methods)}
    rows["_order"] = rows["method"].map(order)
    return rows.sort_values(["_order", "id"]).drop(columns="_order").reset_index(drop=True)


def method_points(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy and input tokens per method over the questions it answered, for methods
    that answered every question of the slice (variants run on a subset are left out)."""
    n = frame["id"].nunique()
    grouped = frame.groupby("method", sort=False)
    points = pd.DataFrame(
        {
            "n": grouped["id"].nunique(),
            "accuracy": grouped["accuracy"].mean(),
            "tokens": grouped["tokens"].mean(),
        }
    ).reset_index()
    return points[points["n"] == n].reset_index(drop=True)
