"""ace_lab.eval.reporting.report: what notebooks 06–08 share (study loading, provenance, export)."""

from __future__ import annotations

import json

import matplotlib.pyplot as plt

from ace_lab.eval.reporting.report import (
    StudyReport,
    dataset_label,
    open_report,
    placeholder,
)


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
