"""ace_lab.eval.report: what notebooks 06–08 share (study loading, provenance, export)."""

from __future__ import annotations

import json

import matplotlib.pyplot as plt

from ace_lab.eval.report import StudyReport, dataset_label, placeholder


def _study(settings, methods=("hirag",)):
    folder = settings.results_dir / "toy-n8-s0"
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
