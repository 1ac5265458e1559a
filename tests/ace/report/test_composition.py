"""ace_lab.ace.report.composition: a composition paired with each of its parts, from records."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ace_lab.ace.report import composition
from ace_lab.ace.report.composition import composition_report, composition_table, parts_of
from ace_lab.eval.reporting.outcomes import ChooserSlice


def _outcomes(method: str, f1: list[float], tokens: int) -> list[dict]:
    return [
        {"id": f"q{i}", "method": method, "accuracy": v, "em": float(v == 1.0), "tokens": tokens}
        for i, v in enumerate(f1)
    ]


def test_parts_of_a_composition():
    assert parts_of("mosaic>ace-full") == ("mosaic", "ace-full")
    assert parts_of("arcrag:r1p1@openie>ace-fixed:gap+depth") == (
        "arcrag:r1p1@openie",
        "ace-fixed:gap+depth",
    )


def test_each_part_is_paired_on_the_questions_both_answered():
    composed = _outcomes("mosaic>ace-full", [1.0, 1.0, 1.0, 0.5], 3000)
    source = _outcomes("mosaic", [0.0, 0.0, 0.0, 0.5, 1.0], 1300)  # q4: composed did not answer
    policy = _outcomes("ace-full", [1.0, 1.0, 1.0, 0.5], 3700)
    frame = pd.DataFrame(composed + source + policy)
    table = composition_table(frame, ["mosaic>ace-full", "absent>ace-full"], label="S")
    assert list(table["part"]) == ["mosaic", "ace-full"]
    vs_source, vs_policy = table.iloc[0], table.iloc[1]
    assert vs_source["n"] == 4 and vs_source["Δ"] == pytest.approx(0.75)
    assert vs_source["p"] == pytest.approx(0.25)  # 3 non-zero equal gains: 2/8
    assert vs_source["input tok part"] == 1300 and vs_source["input tok composed"] == 3000
    assert vs_policy["Δ"] == 0 and vs_policy["p"] == 1.0  # no difference at all
    assert vs_source["p (Holm)"] == pytest.approx(0.5)  # two rows: the smaller p doubled
    assert vs_source["slice"] == "S" and vs_source["Δ [95% CI]"].startswith("+0.750 [")


def test_compositions_default_to_every_name_with_a_source():
    frame = pd.DataFrame(
        _outcomes("hipporag>ace-full", [1.0, 0.0], 10) + _outcomes("hipporag", [0.0, 0.0], 5)
    )
    table = composition_table(frame)
    assert list(table["composition"]) == ["hipporag>ace-full"]
    assert list(table["role"]) == ["source"]  # ace-full never ran: no policy row


def _record(method: str, qid: str, f1: float, tokens: int) -> dict:
    return {
        "id": qid,
        "question": qid,
        "method": method,
        "f1": f1,
        "em": f1,
        "input_tokens": tokens,
    }


def test_the_report_reads_each_slice_and_adjusts_over_all_rows(tmp_path):
    chosen = (ChooserSlice("a-n2", "f1", "A"), ChooserSlice("b-n2", "f1", "B"))
    for s in chosen:
        (tmp_path / s.study).mkdir()
        for method, f1 in (("naive>ace-full", 1.0), ("naive", 0.0), ("ace-full", 1.0)):
            rows = [_record(method, f"q{i}", f1, 100) for i in range(5)]
            text = "\n".join(json.dumps(r) for r in rows) + "\n"
            (tmp_path / s.study / f"{method.replace('>', '_')}.jsonl").write_text(text)
    table = composition_report(tmp_path, chosen)
    assert list(table["slice"]) == ["A", "A", "B", "B"]
    assert table["p"].iloc[0] == pytest.approx(0.0625)  # 5 equal gains: 2 of 32 sign flips
    assert table["p (Holm)"].iloc[0] == pytest.approx(0.25)  # smallest of 4 rows: × 4
    shown = composition.view(table)
    assert "Δ" not in shown and set(shown["metric"]) == {"F1"}


def test_a_judged_slice_names_its_judges_calibration(tmp_path):
    judged = ChooserSlice("grb-n2", "answer_correctness", "GRB")
    scores = tmp_path / judged.study / "graphragbench" / "scores.jsonl"
    scores.parent.mkdir(parents=True)
    lines = [
        {"method": m, "id": f"q{i}", "answer_correctness": v, "judge_model": "a-judge"}
        for m, v in (("naive>ace-full", 0.9), ("naive", 0.5))
        for i in range(2)
    ]
    scores.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    for method in ("naive>ace-full", "naive"):
        rows = [_record(method, f"q{i}", None, 100) for i in range(2)]
        text = "\n".join(json.dumps(r) for r in rows) + "\n"
        (tmp_path / judged.study / f"{method.replace('>', '_')}.jsonl").write_text(text)
    table = composition_report(tmp_path, (judged,))
    assert list(table["judge"]) == ["judge not calibrated"]  # no calibration of "a-judge"
    assert table["composed"].iloc[0] == pytest.approx(0.9)
    assert composition.view(table)["metric"].iloc[0] == "judged ACC"
    assert table["EM composed"].isna().all()  # no exact match against sentence answers
