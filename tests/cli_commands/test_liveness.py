"""``ace-lab liveness``: one study's table over the three reports, its files and the docs parts."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ace_lab.cli import main
from ace_lab.cli_commands.docs import figures
from ace_lab.cli_commands.liveness import (
    FIGURES,
    liveness_count_figure,
    liveness_table_figure,
    study_liveness,
    write_studies,
)
from ace_lab.eval.reporting.docs_numbers import DocsError
from ace_lab.eval.studies.study import load_results

STUDY = "hotpotqa_dev_sample200-n20-s0"  # a committed study's name: the figures' default list
ARC_STATS = {"passes_used": 1, "stop_reason": "sufficient", "cypher_queries": 0}
MOSAIC_POLICY = {"seed_count": 5, "max_depth": 2, "connectors": False, "targets": []}


def _records() -> dict[str, list[dict]]:
    ace = [
        {"id": f"q{i}", "position": i, "method": "ace-adaptive", "topology": "CONTRAST"}
        for i in range(4)
    ]
    arc = [
        {
            "id": f"q{i}",
            "position": i,
            "method": "arcrag",
            "stats": ARC_STATS,
            "steps": [{"name": "judge:p1"}],
        }
        for i in range(4)
    ]
    mosaic = [
        {
            "id": f"q{i}",
            "position": i,
            "method": "mosaic",
            "policy": MOSAIC_POLICY,
            "stats": {"stop_reason": "converged", "depth_reached": 1 + i % 2},
        }
        for i in range(4)
    ]
    base = [{"id": "q0", "position": 0, "method": "hirag"}]
    return {"ace-adaptive": ace, "arcrag": arc, "mosaic": mosaic, "hirag": base}


@pytest.fixture
def results(tmp_path: Path) -> Path:
    study = tmp_path / STUDY
    study.mkdir()
    (study / "manifest.json").write_text(json.dumps({"task": "qa"}), encoding="utf-8")
    for name, rows in _records().items():
        lines = "".join(json.dumps(r) + "\n" for r in rows)
        (study / f"{name}.jsonl").write_text(lines, encoding="utf-8")
    return tmp_path


def _frame(results: Path) -> pd.DataFrame:
    from dataclasses import replace

    from ace_lab.config import load_settings

    return load_results(STUDY, replace(load_settings(), results_dir=results))


def test_one_study_s_table_joins_the_three_reports_and_leaves_baselines_out(results):
    table = study_liveness(_frame(results))
    assert list(dict.fromkeys(table["method"])) == ["ace-adaptive", "arcrag", "mosaic"]
    route = table[table["mechanism"] == "route"]
    assert route[["value", "count", "inert"]].values.tolist() == [["CONTRAST", 4, True]]
    depth = table[(table["method"] == "mosaic") & (table["mechanism"] == "depth reached")]
    assert sorted(depth["value"]) == ["1", "2"] and not depth["inert"].any()
    only_arc = study_liveness(_frame(results), reports=["ace_lab.arc.report"])
    assert set(only_arc["method"]) == {"arcrag"}


def test_write_studies_and_the_command_write_each_study_s_files(results, monkeypatch, capsys):
    paths = write_studies(results, [STUDY])
    assert sorted(p.name for p in paths) == ["liveness.csv", "liveness.md"]
    assert "**inert**" in (results / STUDY / "liveness.md").read_text(encoding="utf-8")
    (results / STUDY / "liveness.csv").unlink()
    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(results))
    assert main(["liveness", "--studies", STUDY]) == 0
    assert "liveness.csv" in capsys.readouterr().out
    assert (results / STUDY / "liveness.csv").is_file()


def test_the_docs_parts(results):
    assert set(FIGURES) <= set(figures())
    text = liveness_table_figure(results, ("mosaic", "ace-adaptive"))
    lines = text.splitlines()
    assert lines[0].startswith("| slice | method | mechanism |")
    assert lines[2].split(" | ")[1] == "`mosaic`"  # the methods in the order given
    assert "**inert**" in text
    assert liveness_count_figure(results, ("ArcRAG", "sufficiency+verdicts", "sufficient")) == (
        "4 of 4"
    )
    assert liveness_count_figure(results, ("mosaic", "seed_count", "5")) == "4 of 4"
    assert liveness_count_figure(results, ("ace-adaptive", "route", "POINT")) == "0 of 4"
    assert liveness_count_figure(results, ("ace-adaptive", "route", "CONTRAST", "hotpot")) == (
        "4 of 4"  # one study, by its docs short name
    )
    with pytest.raises(DocsError):
        liveness_count_figure(results, ("ace-adaptive", "route", "POINT", "2wiki"))
    inert = liveness_table_figure(results, ("inert", "mosaic"))
    assert "depth reached" not in inert and "stop reason" in inert  # 1 or 2; always converged
    with pytest.raises(DocsError):
        liveness_count_figure(results, ("hirag", "route", "POINT"))
    with pytest.raises(DocsError):
        liveness_table_figure(results, ("hirag",))
