"""Mechanism liveness: the frequency table, the inert flag at INERT_SHARE, the summary and files."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ace_lab.eval.liveness import (
    INERT_SHARE,
    frequency_table,
    liveness_markdown,
    liveness_summary,
    method_liveness,
    missing,
    study_task,
    value_text,
    write_liveness,
)


def _rows(values: list, mechanism: str = "route") -> list[dict]:
    return [{mechanism: v} for v in values]


def test_the_threshold_is_the_issues_95_percent():
    assert INERT_SHARE == 0.95


def test_19_of_20_is_inert_and_18_of_20_is_not():
    inert = frequency_table(_rows(["CONTRAST"] * 19 + ["CHAIN"]))
    assert inert["inert"].all()
    assert list(inert["value"]) == ["CONTRAST", "CHAIN"]
    assert list(inert["count"]) == [19, 1] and list(inert["n"]) == [20, 20]
    assert inert["share"].tolist() == pytest.approx([0.95, 0.05])
    live = frequency_table(_rows(["CONTRAST"] * 18 + ["CHAIN", "POINT"]))
    assert not live["inert"].any()


def test_a_mechanism_that_decided_nothing_on_a_question_is_not_counted_there():
    rows = [{"route": "CHAIN", "passes": None}, {"route": float("nan"), "passes": 2}]
    rows += [{"route": "POINT"}]
    table = frequency_table(rows)
    route = table[table["mechanism"] == "route"]
    assert route["n"].tolist() == [2, 2] and not route["inert"].any()
    passes = table[table["mechanism"] == "passes"]
    assert passes[["value", "count", "n"]].values.tolist() == [["2", 1, 1]]
    assert passes["inert"].all()  # one question, one value: 100 %
    assert list(dict.fromkeys(table["mechanism"])) == ["route", "passes"]


def test_values_group_as_text():
    assert value_text(True) == "yes" and value_text(False) == "no"
    assert value_text(("depth", "breadth")) == value_text(["depth", "breadth"]) == "depth+breadth"
    assert value_text(()) == "none"
    assert value_text({"b", "a"}) == "a+b"
    assert value_text(5.0) == "5" and value_text(0.333) == "0.33" and value_text(3) == "3"
    assert missing(None) and missing(float("nan")) and not missing(0) and not missing("")


def test_method_liveness_reads_each_method_with_the_reader_and_skips_what_it_does_not_own():
    frame = pd.DataFrame(
        [
            {"id": f"q{i}", "method": m, "choice": c}
            for i, (m, c) in enumerate(
                [("a", "x"), ("a", "x"), ("a", "y"), ("b", "x"), ("c", "z"), ("c", "z")]
            )
        ]
    )

    def read(rec):
        return None if rec["method"] == "b" else {"choice": rec["choice"]}

    table = method_liveness(frame, read)
    assert list(dict.fromkeys(table["method"])) == ["a", "c"]
    a = table[table["method"] == "a"]
    assert a[["value", "count"]].values.tolist() == [["x", 2], ["y", 1]]
    assert not a["inert"].any() and table[table["method"] == "c"]["inert"].all()
    assert list(method_liveness(frame, read, ["c"])["method"].unique()) == ["c"]
    assert method_liveness(pd.DataFrame(), read).empty


def test_the_summary_keeps_the_top_value_of_each_mechanism():
    table = frequency_table(_rows(["a"] * 3 + ["b"]) + _rows([1] * 4, "k"))
    table.insert(0, "method", "m")
    summary = liveness_summary(table)
    assert summary.to_dict("records") == [
        {
            "method": "m",
            "mechanism": "route",
            "n": 4,
            "values": 2,
            "top": "a",
            "share": 0.75,
            "inert": False,
        },
        {
            "method": "m",
            "mechanism": "k",
            "n": 4,
            "values": 1,
            "top": "1",
            "share": 1.0,
            "inert": True,
        },
    ]
    text = liveness_markdown(summary)
    assert "**inert**" in text and "75 %" in text and "`m`" in text


def test_write_liveness_writes_csv_and_markdown(tmp_path):
    table = frequency_table(_rows(["a", "a"]))
    paths = write_liveness(table, tmp_path / "study")
    assert sorted(p.name for p in paths.values()) == ["liveness.csv", "liveness.md"]
    back = pd.read_csv(paths["csv"])
    assert back["count"].tolist() == [2] and bool(back["inert"].iloc[0])
    assert "**inert**" in paths["md"].read_text(encoding="utf-8")


def test_study_task_reads_the_manifest_of_the_frame_s_study(tmp_path):
    frame = pd.DataFrame({"method": ["a"]})
    assert study_task(frame) is None
    frame.attrs["study_dir"] = str(tmp_path)
    assert study_task(frame) is None  # no manifest
    (tmp_path / "manifest.json").write_text(json.dumps({"task": "open"}), encoding="utf-8")
    assert study_task(frame) == "open"
