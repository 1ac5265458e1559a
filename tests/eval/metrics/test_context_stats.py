"""ace_lab.eval.metrics.context_stats: the context columns every results table carries."""

from __future__ import annotations

import math

import pandas as pd

from ace_lab.eval.metrics.context_stats import (
    CONTEXT_COLUMNS,
    ORIGIN_COLUMNS,
    context_columns,
    format_compliance,
    mean,
    origin_columns,
    with_context,
)
from tests.support.records import result_record

TAG = "Reasoning: r.\n[FINAL_ANSWER] Brinemouth [/FINAL_ANSWER]"


def test_mean_ignores_missing_and_non_numeric_values():
    assert mean(pd.Series([1, None, "x", 3])) == 2.0
    assert math.isnan(mean(pd.Series([], dtype=float))) and math.isnan(mean(None))


def test_format_compliance_is_the_share_of_qa_answers_in_the_prompts_format():
    records = pd.DataFrame(
        {
            "raw": [TAG, "Result: Brinemouth", TAG, None],
            "gold": [["Brinemouth"], ["Brinemouth"], [], ["x"]],  # a summary; no reply
        }
    )
    assert format_compliance(records) == 0.5
    assert math.isnan(format_compliance(records.iloc[2:]))  # no QA answer with a reply
    assert math.isnan(format_compliance(records.drop(columns="raw")))
    json_replies = pd.DataFrame(
        {"raw": ['{"reasoning": "r", "answer": "B"}', "B"], "gold": [["B"], ["B"]]}
    )
    assert format_compliance(json_replies) == 0.5  # the JSON prompt's object counts too


def test_context_columns_read_old_and_new_records():
    old = pd.DataFrame({"context_tokens": [100, 300], "support_recall": [1.0, 0.5]})
    columns = context_columns(old)
    assert (columns["context_tokens"], columns["provenance_recall"]) == (200.0, 0.75)
    assert math.isnan(columns["passage_recall"]) and math.isnan(columns["format_compliance"])
    new = pd.DataFrame({"passage_recall": [0.5, None], "provenance_recall": [1.0, None]})
    assert context_columns(new)["passage_recall"] == 0.5  # a question without supporting ids
    assert list(context_columns(new)) == list(CONTEXT_COLUMNS)


def test_context_columns_carry_the_evidence_metrics_and_read_older_coverage():
    records = pd.DataFrame(
        {
            "answer_coverage": [True, None, None, False],
            "context_has_answer": [True, True, None, True],  # the run's own coverage check
            "supporting_fact_recall": [1.0, 0.5, None, None],
            "context_llm_tokens": [0, 300, None, 900],
        }
    )
    columns = context_columns(records)
    assert columns["answer_coverage"] == 2 / 3  # True, True (older), False; a yes/no left out
    assert columns["supporting_fact_recall"] == 0.75 and columns["context_llm_tokens"] == 400
    assert {"answer_coverage", "supporting_fact_recall", "context_llm_tokens"} <= set(
        CONTEXT_COLUMNS
    )
    assert math.isnan(context_columns(pd.DataFrame({"x": [1]}))["answer_coverage"])


def test_with_context_adds_columns_per_method_row_and_leaves_others_empty():
    df = pd.DataFrame(
        [
            result_record("m", 0, context_tokens=10, raw=TAG, gold=["Brinemouth"]),
            result_record("m", 0, context_tokens=30, raw="x", gold=["Brinemouth"]),  # rerun
            result_record("m", 1, context_tokens=50, raw=TAG, gold=["Brinemouth"]),
        ]
    )
    table = pd.DataFrame(
        {"method": ["m", "shuffled router"], "F1": [0.5, 0.4], "context_tokens": [1.0, 2.0]}
    )
    out = with_context(table, df)
    assert list(out.columns) == ["method", "F1", *CONTEXT_COLUMNS]
    assert out.loc[0, "context_tokens"] == 40  # the last record of a repeated question counts
    assert out.loc[0, "format_compliance"] == 0.5
    assert out.loc[1, list(CONTEXT_COLUMNS)].isna().all()
    assert list(table["context_tokens"]) == [1.0, 2.0]  # the input is not changed


def test_origin_columns_average_the_records_that_carry_them():
    origin = {"context_from_model": 0.5, "context_from_template": 0.5, "context_from_fallback": 0}
    empty = dict.fromkeys(ORIGIN_COLUMNS, 0.0)  # an empty context: nothing came from anywhere
    records = pd.DataFrame({"stats": [origin, empty, {"witness_edges": 1}, None]})
    assert origin_columns(records) == {
        "context_from_model": 0.25,
        "context_from_template": 0.25,
        "context_from_fallback": 0.0,
    }
    assert origin_columns(records.iloc[2:]) == {} and origin_columns(pd.DataFrame()) == {}


def test_readers_and_short_reader_compliance() -> None:
    from ace_lab.eval.metrics.context_stats import format_compliance, readers

    records = pd.DataFrame(
        {
            "raw": ["Paris", "Reasoning: x\nParis", "[FINAL_ANSWER] Rome [/FINAL_ANSWER]"],
            "gold": [["Paris"], ["Paris"], ["Rome"]],
            "reader": ["short", "short", None],  # the last one written before readers
        }
    )
    assert readers(records) == "short+tagged"
    assert format_compliance(records) == 2 / 3  # a two-line reply is outside the grammar
    assert readers(records.assign(raw=None, reader=None)) == ""  # evidence-only records
