"""Every judged number in a committed table carries its judge's calibration.

Walks every table under ``results/`` (CSV and TeX files, and the markdown tables of its ``.md``
files and study READMEs) and every markdown table under ``docs/``. A table is judged when a
column header names a judged metric (Answer Correctness, Coverage, Faithfulness, Evidence
Recall, Context Relevancy, semantic equivalence, a pairwise win rate) or its ``metric`` column
names one on a row (answer coverage, whether the gold answer occurs in the context, is a
string match, not judged). Each judged row must carry a calibration cell — the judge's balanced
accuracy and n, or "judge not calibrated" (:mod:`ace_lab.eval.judging.calibration`) — in a
column whose header names the judge, in a "judge calibration" row, or in the judged column's
header; and every accuracy below the threshold must carry "judge uninformative".
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest

from ace_lab.eval.judging.calibration import CALIBRATION_THRESHOLD, NOT_CALIBRATED, UNINFORMATIVE
from tests.support.paths import REPO

#: A column header that names a judged metric.
JUDGED_HEADER = re.compile(
    r"\bACC\b|answer.?correctness|^coverage(_score)?\b|faithfulness|evidence.?recall|"
    r"context.?relevancy|^semantic$|win.?rate|^(overall|comprehensiveness|diversity|empowerment)$",
    re.I,
)
#: A ``metric`` cell that names a judged metric.
JUDGED_METRIC = re.compile(
    r"judged|answer_correctness|coverage_score|^faithfulness$|evidence_recall|context_relevancy",
    re.I,
)
#: A header of the column (or the first cell of the row) holding the judge's calibration.
JUDGE_HEADER = re.compile(r"^judge( calibration|_calibration)?$", re.I)
#: One judge's calibration in a cell: accuracy and n, or never calibrated.
CALIBRATION = re.compile(rf"(\d\.\d+) \(n=\d+\)|{NOT_CALIBRATED}")
#: Tables that are calibrations themselves (their accuracy is the subject, not a judged score).
CALIBRATION_TABLE = re.compile(r"balanced accuracy|^calibration$", re.I)


def markdown_tables(text: str) -> list[pd.DataFrame]:
    """Every pipe table of a markdown text, as strings (code fences skipped)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    tables, block = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if len(block) >= 2 and re.match(r"^\|[\s:\-|]+\|$", block[1]):
            rows = [[c.strip() for c in row.strip().strip("|").split("|")] for row in block]
            width = len(rows[0])
            body = [r + [""] * (width - len(r)) for r in rows[2:]]
            tables.append(pd.DataFrame([r[:width] for r in body], columns=rows[0]))
        block = []
    return tables


def problems(table: pd.DataFrame) -> list[str]:
    """Why ``table``'s judged numbers are not all marked (empty when they are)."""
    table = table.astype(str).replace({"nan": ""})
    headers = [str(c) for c in table.columns]
    if any(CALIBRATION_TABLE.search(h) for h in headers):
        cells = [c for h in headers if JUDGE_HEADER.match(h) for c in table[h]]
        return _marks(cells)
    judged_columns = [h for h in headers if JUDGED_HEADER.search(h)]
    metric = next((h for h in headers if h.lower() == "metric"), None)
    judged_rows = (
        table[metric].map(lambda v: bool(JUDGED_METRIC.search(v)))
        if metric
        else pd.Series(bool(judged_columns), index=table.index)
    )
    if not judged_columns and not judged_rows.any():
        return []
    if all(CALIBRATION.search(h) for h in judged_columns) and judged_columns and not metric:
        return _marks(judged_columns)  # the calibration in each judged column's header
    first = headers[0]
    marked_row = table[table[first].str.lower() == "judge calibration"]
    if not marked_row.empty:
        cells = [marked_row.iloc[0][h] for h in judged_columns]
        missing = [
            h for h, c in zip(judged_columns, cells, strict=True) if not CALIBRATION.search(c)
        ]
        return [f"judged column {h!r} has no calibration in its row" for h in missing] + _marks(
            cells
        )
    judge = next((h for h in headers if JUDGE_HEADER.match(h)), None)
    if judge is None:
        return [f"judged columns {judged_columns or [metric]} and no judge calibration column"]
    cells = list(table.loc[judged_rows, judge])
    bare = [
        i for i, c in zip(table.index[judged_rows], cells, strict=True) if not CALIBRATION.search(c)
    ]
    return [f"judged rows {bare[:5]} have no calibration in {judge!r}"] * bool(bare) + _marks(cells)


def _marks(cells: list[str]) -> list[str]:
    """Each calibration below the threshold must say the judge is uninformative."""
    out = []
    for cell in cells:
        for found in re.finditer(r"(\d\.\d+) \(n=\d+\)([^;]*)", cell):
            if float(found[1]) < CALIBRATION_THRESHOLD and UNINFORMATIVE not in found[2]:
                out.append(f"{cell!r}: below {CALIBRATION_THRESHOLD} without {UNINFORMATIVE!r}")
    return out


def _results_tables() -> list[Path]:
    return sorted(p for p in (REPO / "results").rglob("*") if p.suffix in (".csv", ".md", ".tex"))


def _docs() -> list[Path]:
    return [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]


@pytest.mark.parametrize(
    "path", _results_tables() + _docs(), ids=lambda p: str(p.relative_to(REPO))
)
def test_every_judged_number_carries_its_judges_calibration(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".csv":
        tables = [pd.read_csv(io.StringIO(text), keep_default_na=False, dtype=str)]
    elif path.suffix == ".tex":
        csv = path.with_suffix(".csv")
        if not csv.is_file() or not problems(pd.read_csv(csv, keep_default_na=False, dtype=str)):
            header = pd.read_csv(csv, nrows=0).columns if csv.is_file() else []
            judged = [h for h in header if JUDGED_HEADER.search(h)]
            assert not judged or "judge" in text, f"{path}: judged {judged} without the judge"
        return
    else:
        tables = markdown_tables(text)
    found = [f"table {i}: {p}" for i, table in enumerate(tables) for p in problems(table)]
    assert not found, f"{path.relative_to(REPO)}:\n" + "\n".join(found)


# ---------------------------------------------------------------- the walker's own checks
def test_the_audits_unmarked_tables_would_fail():
    """The tables the audit found unmarked, as they were: each fails here."""
    paired = pd.DataFrame({"method": ["naive"], "ANSWER_CORRECTNESS": ["0.7"], "p_holm": ["0.03"]})
    assert problems(paired)
    chooser = pd.DataFrame({"slice": ["GRB"], "metric": ["judged ACC"], "accuracy": ["0.78"]})
    assert problems(chooser)
    wins = markdown_tables(
        "| against | W / L / T | win rate |\n|---|---|---|\n| `naive` | 1 / 0 / 7 | 0.5 |\n"
    )
    assert problems(wins[0])
    unmarked = pd.DataFrame(
        {"method": ["a"], "semantic": ["0.5"], "judge_calibration": ["0.62 (n=8)"]}
    )
    assert problems(unmarked) == [f"'0.62 (n=8)': below 0.75 without '{UNINFORMATIVE}'"]


def test_marked_tables_pass_and_unjudged_ones_are_left_alone():
    marked = pd.DataFrame(
        {
            "slice": ["HotpotQA", "GRB"],
            "metric": ["F1", "judged ACC"],
            "judge calibration": ["", f"0.65 (n=20) {UNINFORMATIVE}"],
        }
    )
    assert problems(marked) == []
    assert problems(pd.DataFrame({"method": ["a"], "F1": ["0.5"], "EM": ["0.4"]})) == []
    row = markdown_tables(
        "| method | ACC | ROUGE-L |\n|---|---|---|\n| `a` | 0.7 (20) | 0.3 (16) |\n"
        f"| judge calibration | 0.65 (n=20) {UNINFORMATIVE} | no judge |\n"
    )
    assert problems(row[0]) == []
    mixed = f"0.97 (n=32) on 12 of 20 verdicts; {NOT_CALIBRATED} on 8 of 20 verdicts"
    assert problems(pd.DataFrame({"semantic": ["0.5"], "judge_calibration": [mixed]})) == []


def test_the_results_page_says_no_judged_number_is_evidence_before_its_judged_tables():
    """The audit found the prose reading HippoRAG's judged lead sixty lines before the note that
    no judged column is evidence: the note now opens the GraphRAG-Bench section, and no prose
    there reads a judged difference as a lead."""
    page = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    section = page[page.index("### GraphRAG-Bench") :]
    section = section[: section.index("\n## ")]
    note = section.index("No judged number in this section is evidence")
    assert note < section.index("<!-- grb_table medical: begin -->")
    prose = re.sub(r"<!--.*?-->", "", section, flags=re.S)
    assert "lead" not in prose and "is the only one whose" not in prose


def test_the_qfs_readme_reads_no_uncalibrated_win_rate_as_a_preference():
    """The audit's case: "the judge never preferred" the variant without the task-specific
    prompt, from a judge that was never calibrated; the README now says first that no win rate
    is evidence, and its counts are generated."""
    readme = (REPO / "results" / "ultradomain_mix-n8-s0" / "README.md").read_text(encoding="utf-8")
    assert "never preferred" not in readme
    assert readme.index("No win rate here is evidence") < readme.index("<!-- win_rates ")
    assert "<!-- wins ultradomain_mix-n8-s0 ace-full ace-generic-prompt" in readme
