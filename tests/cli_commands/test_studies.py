"""ace_lab.cli_commands.studies: ``ace-lab report`` prints the columns the exports carry,
Holm-adjusted p and the minimal detectable difference included."""

from __future__ import annotations

import json

from ace_lab.eval.reporting.costs import COST_COLUMNS
from ace_lab.eval.reporting.tables import PAIRED_VIEW
from ace_lab.eval.studies.study import safe_name
from tests.support.records import synthetic_results


def test_report_prints_the_paired_tables_holm_p_and_detectable_difference(
    tmp_path, monkeypatch, capsys
):
    from ace_lab.cli import main

    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(tmp_path))
    directory = tmp_path / "synthetic"
    directory.mkdir()
    for method, frame in synthetic_results().groupby("method", sort=False):
        lines = [json.dumps(rec) for rec in frame.to_dict("records")]
        (directory / f"{safe_name(method)}.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["report", "--study", "synthetic"]) == 0
    out = capsys.readouterr().out
    paired = out.split("F1 vs hirag (paired)", 1)[1]
    header = paired.strip().splitlines()[0]
    for column in ("p_permutation", "p_holm", "mde", "n_for_+0.05"):
        assert f" {column} |" in header
    shown = [c for c in PAIRED_VIEW if f" {c} |" in header]
    assert shown[:4] == ["method", "n", "F1", "F1_baseline"]
    assert "p_holm: Holm-adjusted" in out


def _evidence_study(directory) -> None:
    """Two methods' evidence-only records on 12 questions: naive holds both gold passages,
    hirag one of them."""
    directory.mkdir()
    for method, held in (("naive", ["g1", "g2"]), ("hirag", ["g1", "x"])):
        records = [
            {
                "method": method,
                "id": f"q{i}",
                "question": "?",
                "gold": ["a"],
                "answer": None,
                "evidence_only": True,
                "supporting_ids": ["g1", "g2"],
                "context_ids": held,
                "context_texts": ["a", "b"],
                **dict.fromkeys(COST_COLUMNS, 0),
            }
            for i in range(12)
        ]
        lines = [json.dumps(rec) for rec in records]
        (directory / f"{method}.jsonl").write_text("\n".join(lines) + "\n")


def test_report_of_an_evidence_only_study_tests_passage_recall(tmp_path, monkeypatch, capsys):
    from ace_lab.cli import main

    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(tmp_path))
    _evidence_study(tmp_path / "evidence")
    assert main(["report", "--study", "evidence", "--baseline", "naive"]) == 0
    paired = capsys.readouterr().out.split("PASSAGE_RECALL vs naive (paired)", 1)[1]
    row = next(line for line in paired.splitlines() if line.startswith("| hirag"))
    assert "| 0.500 | 1.000 | -0.500 [-0.500, -0.500] |" in row
    assert main(["report", "--study", "evidence", "--baseline", "naive", "--metric", "nope"]) == 1
    assert "has no column 'nope' to test" in capsys.readouterr().err
