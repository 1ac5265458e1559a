"""ace_lab.eval.reporting.headline: one row per core method, no made-up cell."""

from __future__ import annotations

import pandas as pd

from ace_lab.eval.reporting.headline import (
    CoreMethod,
    SliceRecords,
    headline_table,
    verdict_words,
)


def _records(method: str, f1: list[float], covered: list[bool]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"method": method, "id": f"q{i}", "f1": s, "answer_coverage": c}
            | {"context_tokens": 100.0, "input_tokens": 150.0}
            for i, (s, c) in enumerate(zip(f1, covered, strict=True))
        ]
    )


def test_rows_cells_and_a_missing_slice():
    one = SliceRecords(
        "A",
        pd.concat(
            [_records("naive", [1, 0], [True, True]), _records("mosaic", [0, 0], [False, True])]
        ),
        _records("naive:b1500", [0, 0], [True, False]),
    )
    two = SliceRecords("B", _records("naive", [1, 1], [True, True]), pd.DataFrame())
    methods = [CoreMethod("naive", "naive:b1500"), CoreMethod("mosaic", note="own contexts")]
    table, points = headline_table([one, two], methods, ("f1", "F1"), ("answer_coverage", "cov"))
    naive, mosaic = table.iloc[0], table.iloc[1]
    assert naive["method"] == "NaiveRAG" and mosaic["method"] == "MOSAIC"
    assert naive["A F1"].endswith("(n 2)") and naive["A cov"].startswith("0.500")  # evidence run
    assert naive["B cov"] == ""  # no evidence-only run there: empty, not zero
    assert mosaic["B F1"] == "" and mosaic["note"] == "no run on B; own contexts"
    assert mosaic["A cov"].startswith("0.500")  # its answered contexts stand in
    assert naive["context tokens"] == "100" and naive["input tokens"] == "150"
    assert set(points["metric"]) == {"F1", "cov"} and (points["low"] <= points["mean"]).all()


def test_verdict_words_read_the_verdict_table(tmp_path):
    path = tmp_path / "verdicts.csv"
    pd.DataFrame(
        [
            {"A": "x", "claim": "X wins", "verdict": "supported", "slices": "S, T"},
            {"A": "x", "claim": "later", "verdict": "no", "slices": "S"},
        ]
    ).to_csv(path, index=False)
    assert verdict_words(path) == {"x": "supported (X wins)"}
    assert verdict_words(path, ["T"]) == {"x": "supported (X wins)"}
    assert verdict_words(path, ["U"]) == {}
    assert verdict_words(tmp_path / "none.csv") == {}
