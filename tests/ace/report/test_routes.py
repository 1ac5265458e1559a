"""ace_lab.ace.report.routes: the router measured alone — confusion, accuracy under the proxy
mapping and the paired prompt difference, from hand-made route records."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ace_lab.ace.report.routes import (
    ROUTES_FILE,
    accuracy_table,
    confusion_table,
    load_routes,
    paired_table,
)


def _routes() -> pd.DataFrame:
    """Three HotpotQA-like questions routed by the few-shot prompt (one OVERVIEW fallback)."""
    keys = ["id", "type", "label", "attempts", "fallback"]
    rows = [
        ("h1", "bridge", "CHAIN", 1, False),
        ("h2", "comparison", "CONTRAST", 1, False),
        ("h3", "bridge", "OVERVIEW", 3, True),
    ]
    fixed = {"dataset": "hp", "slice": "hp-n3-s0", "prompt": "fewshot"}
    return pd.DataFrame([fixed | dict(zip(keys, row, strict=True)) for row in rows])


def test_tables_count_labels_per_type_and_score_the_proxy():
    routes = _routes()
    confusion = confusion_table(routes).set_index("type")
    assert confusion.loc["bridge", ["n", "CHAIN", "OVERVIEW", "correct"]].tolist() == [2, 1, 1, 1]
    assert confusion.loc["comparison", ["CONTRAST", "correct"]].tolist() == [1, 1]
    accuracy = accuracy_table(routes)
    first = accuracy.iloc[0]
    assert (first["dataset"], first["n"], first["correct"], first["classes"]) == ("hp", 3, 2, 3)
    assert first["accuracy"] == pytest.approx(2 / 3) and first["fallbacks"] == 1
    assert first["retries"] == 1 and list(accuracy["dataset"]) == ["hp", "all"]
    assert confusion_table(routes.iloc[0:0]).empty


def test_paired_table_compares_two_prompts_on_the_same_questions():
    routes = _routes()
    paper = routes.assign(prompt="paper", label="CONTRAST")  # right only on the comparison
    both = pd.concat([routes, paper], ignore_index=True)
    table = paired_table(both).set_index("dataset")
    assert list(table.index) == ["hp", "all"]
    assert table.loc["hp", "n"] == 3
    assert table.loc["hp", "accuracy diff"] == pytest.approx(2 / 3 - 1 / 3)
    assert 0 < table.loc["hp", "p_permutation"] <= 1
    assert paired_table(routes).empty  # one prompt only: nothing to pair


def test_load_routes_reads_the_measurement_or_is_empty(tmp_path):
    assert load_routes(tmp_path).empty
    path = tmp_path / ROUTES_FILE
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_routes().to_dict("records")), encoding="utf-8")
    assert list(load_routes(tmp_path)["label"]) == ["CHAIN", "CONTRAST", "OVERVIEW"]
