"""ace_lab.eval.report: what notebooks 06–08 share (study loading, provenance, export)."""

from __future__ import annotations

import json

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from ace_lab.eval import tables
from ace_lab.eval.report import (
    StudyReport,
    dataset_label,
    open_report,
    placeholder,
    readme_tables,
    update_readme,
)
from tests.conftest import result_record


def _study(settings, methods=("hirag",), name="toy-n8-s0"):
    folder = settings.results_dir / name
    folder.mkdir(parents=True)
    for method in methods:
        rec = {"id": "q1", "position": 0, "method": method, "em": 1.0, "f1": 1.0}
        (folder / f"{method}.jsonl").write_text(json.dumps(rec) + "\n")
    manifest = {"dataset": "toy", "n": 8, "seed": 0, "slice_id": "toy-n8-s0", "model": "m",
                "methods": {m: {"model": "m"} for m in methods}}  # fmt: skip
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_missing_study_and_methods_print_the_command(settings, capsys):
    report = StudyReport(settings)
    assert report.load_study("toy-n8-s0", ["hirag"]) is None
    assert "ace-lab run --methods hirag --dataset toy --n 8" in capsys.readouterr().out
    _study(settings)
    df = report.load_study("toy-n8-s0", ["hirag", "ace-full"])
    assert list(df["method"]) == ["hirag"]
    assert "ace-lab run --methods ace-full" in capsys.readouterr().out
    manifest = report.describe("toy-n8-s0", df)
    assert manifest["dataset"] == "toy" and "questions answered: hirag 1" in capsys.readouterr().out


def test_export_goes_to_tables_dir_when_set(settings, tmp_path):
    _study(settings)
    df = StudyReport(settings).load_study("toy-n8-s0", ["hirag"])
    beside = StudyReport(settings).export(df, "t", "toy-n8-s0")
    assert beside["csv"].parent == settings.results_dir / "toy-n8-s0"
    scratch = StudyReport(settings, tmp_path / "scratch").export(df, "t", "toy-n8-s0")
    assert scratch["md"] == tmp_path / "scratch" / "toy-n8-s0" / "t.md"


def test_labels_and_placeholder():
    assert dataset_label({"dataset": "toy"}, "s1", set()) == "toy"
    assert dataset_label({"dataset": "toy"}, "s2", {"toy"}) == "s2"
    fig, ax = plt.subplots()
    placeholder(ax, "no results yet; run ace-lab run")
    assert "no results yet" in ax.texts[0].get_text()
    plt.close(fig)


def test_load_studies_labels_each_loaded_study(settings, capsys):
    _study(settings, ("hirag", "ace-full"))
    _study(settings, ("naive",), name="other")
    report = StudyReport(settings)
    found = report.load_studies(["toy-n8-s0", "missing", "other"], ["hirag", "ace-full"])
    assert list(found) == ["toy-n8-s0", "other"]  # "missing" has no results: left out
    first, second = found.values()
    assert (first.label, second.label) == ("toy", "other")  # the data set name repeats
    assert first.model == "m" and first.title == "toy: toy-n8-s0, model m"
    assert first.has("hirag", "ace-full") and not second.has("hirag")
    assert first.present(["naive", "ace-full", "hirag"]) == ["ace-full", "hirag"]
    assert "make them: ace-lab run --methods hirag ace-full" in capsys.readouterr().out

    required = report.load_studies(["toy-n8-s0", "other"], ["hirag"], require=["hirag"])
    assert list(required) == ["toy-n8-s0"]
    assert "none of ['hirag'] in this study" in capsys.readouterr().out


def test_commands_for_what_is_missing(settings, capsys):
    _study(settings)
    report = StudyReport(settings)
    assert report.command(["hirag"], ["toy-n8-s0"]).startswith(
        "ace-lab run --methods hirag --dataset toy --n 8"
    )
    assert "--study '<study>'" in report.command(["hirag"], [])
    report.missing("toy-n8-s0", ["ace-full"], "no ACE runs")
    out = capsys.readouterr().out
    assert out.startswith("toy-n8-s0: no ACE runs; make it: ace-lab run --methods ace-full")
    report.print_judge_commands("toy-n8-s0", [["ace-full", "hirag"], ["ace-full", "naive"]])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("  ace-lab run --methods ace-full hirag naive --dataset toy")
    assert lines[1:] == [
        "  ace-lab judge --study toy-n8-s0 --a ace-full --b hirag",
        "  ace-lab judge --study toy-n8-s0 --a ace-full --b naive",
    ]


def test_open_report_resolves_results_dir(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    report = open_report("elsewhere", tmp_path / "tables")
    assert report.settings.results_dir == tmp_path / "elsewhere"
    assert report.tables_dir == tmp_path / "tables"
    assert capsys.readouterr().out == f"results: {tmp_path / 'elsewhere'}\n"
    assert open_report().tables_dir is None


def _combined(tmp_path):
    """A two-data-set main table written and read back as ``results/main_table.csv`` is."""
    df = pd.DataFrame(
        [
            result_record("hirag", i, em=1.0, f1=1.0, context_tokens=10 * (i + 1),
                          passage_recall=0.5, provenance_recall=1.0)
            for i in range(2)
        ]
    )  # fmt: skip
    main = tables.main_table(df, ["hirag"])
    combined = tables.main_table_by_dataset({"hotpotqa_dev_sample200": main, "x": main}, ["hirag"])
    combined.to_csv(tmp_path / "main_table.csv", index=False)
    return pd.read_csv(tmp_path / "main_table.csv")


def test_readme_tables_split_accuracy_and_contexts(tmp_path):
    accuracy, context = readme_tables(_combined(tmp_path)).split("\n\n")
    assert (
        accuracy.splitlines()[0]
        == "| method | HotpotQA n | HotpotQA EM | HotpotQA F1 | x n | x EM | x F1 |"
    )
    assert accuracy.splitlines()[2].startswith("| `hirag` | 2 | 1.000 [")
    assert context.splitlines()[0].startswith(
        "| method | HotpotQA context tokens | HotpotQA passage"
    )
    assert "| `hirag` | 15.000 | 0.500 | 1.000 |  | 15.000 |" in context  # no raw: no compliance


def test_update_readme_rewrites_only_its_section(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- main_table: begin -->\nold\n<!-- main_table: end -->\nend\n")
    _combined(tmp_path)
    assert update_readme(readme, tmp_path / "main_table.csv") is True
    text = readme.read_text()
    assert text.startswith("intro\n<!-- main_table: begin -->\n| method |") and "old" not in text
    assert text.endswith("|\n<!-- main_table: end -->\nend\n")
    assert update_readme(readme, tmp_path / "main_table.csv") is False  # already current
    readme.write_text("no markers\n")
    with pytest.raises(ValueError, match="main_table: begin"):
        update_readme(readme, tmp_path / "main_table.csv")
