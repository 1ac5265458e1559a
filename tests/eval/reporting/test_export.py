"""ace_lab.eval.reporting.export: markdown, LaTeX and CSV files of a table, and ``ace-lab report
--export`` writing them beside a study's results."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from ace_lab.eval.reporting.export import export_table, markdown_section, to_latex, to_markdown
from ace_lab.eval.reporting.tables import main_table
from ace_lab.eval.studies.study import safe_name
from tests.support.records import synthetic_results


def test_export_writes_csv_md_and_tex(tmp_path, monkeypatch):
    table = main_table(synthetic_results(), ["hirag", "ace-full"])
    paths = export_table(table, "main_table", tmp_path / "study")
    assert {p.name for p in paths.values()} == {"main_table.csv", "main_table.md", "main_table.tex"}
    assert pd.read_csv(paths["csv"])["EM"].tolist() == pytest.approx([2 / 6, 4 / 6])
    md = paths["md"].read_text().splitlines()
    assert md[0].startswith("| method | n | reader | EM |") and md[1].startswith("| --- | ---: |")
    assert "| hirag | 6 |  | 0.333 |" in md[2]  # synthetic records name no reader
    assert paths["md"].read_text() == to_markdown(table) + "\n"
    tex = paths["tex"].read_text()
    assert "\\begin{tabular}" in tex and "EM [95\\% CI]" in tex and "EM\\_low" in tex

    monkeypatch.setitem(sys.modules, "jinja2", None)  # importing it now raises ImportError
    fallback = to_latex(table)
    assert fallback.startswith("\\begin{tabular}{lr") and "\\toprule" in fallback
    assert "EM [95\\% CI]" in fallback and "0.333" in fallback


def test_markdown_cells_escape_pipes_and_leave_missing_values_empty():
    table = pd.DataFrame({"method": ["a|b", "c"], "n": [1, 2], "F1": [0.5, float("nan")]})
    lines = to_markdown(table).splitlines()
    assert lines[1] == "| --- | ---: | ---: |"
    assert lines[2] == "| a\\|b | 1 | 0.500 |" and lines[3] == "| c | 2 |  |"


def test_cli_report_exports_tables(tmp_path, monkeypatch, capsys):
    from ace_lab.cli import build_parser, main

    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(tmp_path))
    directory = Path(tmp_path) / "synthetic"
    directory.mkdir()
    for method, frame in synthetic_results().groupby("method", sort=False):
        lines = [json.dumps(rec) for rec in frame.to_dict("records")]
        (directory / f"{safe_name(method)}.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["report", "--study", "synthetic", "--export"]) == 0
    out = capsys.readouterr().out
    assert "## Accuracy" in out and "| ace-full | 6 |" in out and "F1 vs hirag" in out
    assert {"main_table.md", "cost_table.tex", "paired_tests.csv"} <= {
        p.name for p in directory.iterdir()
    }
    args = build_parser().parse_args(
        ["run", "--methods", "hirag", "ace-full", "--dataset", "toy", "--n", "8", "--limit", "2"]
    )
    assert args.methods == ["hirag", "ace-full"] and args.limit == 2 and args.concurrency is None


def test_markdown_section_replaces_only_what_its_markers_enclose():
    text = "a\n<!-- t: begin -->\nold\nlines\n<!-- t: end -->\nb\n"
    new = markdown_section(text, "t", "\n| x |\n")
    assert new == "a\n<!-- t: begin -->\n| x |\n<!-- t: end -->\nb\n"
    assert markdown_section(new, "t", "| x |") == new  # regenerating changes nothing
    for broken in ("a\n", "<!-- t: end -->\n<!-- t: begin -->\n", text + text):
        with pytest.raises(ValueError, match="t: begin"):
            markdown_section(broken, "t", "| x |")
