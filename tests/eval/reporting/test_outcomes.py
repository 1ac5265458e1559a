"""ace_lab.eval.reporting.outcomes: per-question outcomes of a committed slice, and which
methods a GraphRAG-Bench slice offers the chooser."""

from __future__ import annotations

import json

import pandas as pd

from ace_lab.eval.reporting.outcomes import GRB_SCORES, ChooserSlice, grb_methods, slice_outcomes

GRB = ChooserSlice("grb-n2", "answer_correctness", "GRB")


def _write(tmp_path, methods: list[str]) -> None:
    pd.DataFrame({"method": ["naive", "hirag"]}).to_csv(tmp_path / "main_table.csv", index=False)
    study = tmp_path / GRB.study
    (study / GRB_SCORES).parent.mkdir(parents=True)
    scores = [
        {"method": m, "id": f"q{i}", "answer_correctness": 0.5} for m in methods for i in (0, 1)
    ]
    (study / GRB_SCORES).write_text("\n".join(json.dumps(s) for s in scores) + "\n")
    for m in methods:
        rows = [
            {"id": f"q{i}", "method": m, "f1": None, "input_tokens": 10 * (i + 1)} for i in (0, 1)
        ]
        (study / f"{m.replace('>', '_').replace(':', '_')}.jsonl").write_text(
            "\n".join(json.dumps(r) for r in rows) + "\n"
        )


def test_grb_candidates_leave_out_variants_and_compositions(tmp_path):
    _write(tmp_path, ["mosaic", "hirag", "naive", "mosaic-fixed:wide", "mosaic>ace-adaptive"])
    assert grb_methods(tmp_path, GRB) == ["naive", "hirag", "mosaic"]  # main-table order first


def test_judged_outcomes_take_the_score_file_accuracy(tmp_path):
    _write(tmp_path, ["naive", "mosaic>ace-adaptive"])
    frame = slice_outcomes(tmp_path, GRB)
    assert set(frame["method"]) == {"naive", "mosaic>ace-adaptive"}
    assert frame["accuracy"].tolist() == [0.5] * 4 and set(frame["tokens"]) == {10.0, 20.0}
