"""ace_lab.ace.report.composition: a composition paired with each of its parts, from records."""

from __future__ import annotations

import json

import pytest

from ace_lab.ace.report.composition import composition_table, parts_of, read_records


def _records(method: str, f1: list[float], tokens: int) -> list[dict]:
    return [
        {"id": f"q{i}", "method": method, "f1": v, "em": float(v == 1.0), "input_tokens": tokens}
        for i, v in enumerate(f1)
    ]


def test_parts_of_a_composition():
    assert parts_of("mosaic>ace-full") == ("mosaic", "ace-full")
    assert parts_of("arcrag:r1p1@openie>ace-fixed:gap+depth") == (
        "arcrag:r1p1@openie",
        "ace-fixed:gap+depth",
    )


def test_each_part_is_paired_on_the_questions_both_answered(tmp_path):
    composed = _records("mosaic>ace-full", [1.0, 1.0, 1.0, 0.5], 3000)
    source = _records("mosaic", [0.0, 0.0, 0.0, 0.5, 1.0], 1300)  # q4: composed did not answer
    policy = _records("ace-full", [1.0, 1.0, 1.0, 0.5], 3700)
    for name, rows in (("a", composed), ("b", source + policy)):
        (tmp_path / f"{name}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (tmp_path / "a.errors.jsonl").write_text(json.dumps({"method": "x", "error": "e"}) + "\n")
    table = composition_table(read_records([tmp_path]), ["mosaic>ace-full", "absent>ace-full"])
    assert list(table["part"]) == ["mosaic", "ace-full"]
    vs_source, vs_policy = table.iloc[0], table.iloc[1]
    assert vs_source["n"] == 4 and vs_source["ΔF1"] == pytest.approx(0.75)
    assert vs_source["p(F1)"] == pytest.approx(0.25)  # 3 non-zero equal gains: 2/8
    assert vs_source["input tok part"] == 1300 and vs_source["input tok composed"] == 3000
    assert vs_policy["ΔF1"] == 0 and vs_policy["p(F1)"] == 1.0  # no difference at all
