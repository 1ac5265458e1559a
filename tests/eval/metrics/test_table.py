"""ace_lab.eval.metrics.table: one row per metric, and everything that writes, completes,
rescores or tabulates records iterating over the rows (a new metric is its function and its row).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pandas as pd
import pytest

from ace_lab.config import load_settings
from ace_lab.data import Question
from ace_lab.eval.metrics import table
from ace_lab.eval.metrics.context_stats import CONTEXT_COLUMNS, context_columns, with_context
from ace_lab.eval.metrics.table import (
    METRICS,
    Metric,
    RecordInput,
    answer_metrics,
    answer_scores,
    context_metrics,
    record_columns,
)
from ace_lab.eval.reporting.docs_numbers import main_table_markdown
from ace_lab.eval.reporting.tables import MAIN_VIEW, main_table, main_table_by_dataset
from ace_lab.eval.studies.record import record, with_metrics
from ace_lab.eval.studies.study import rescore
from ace_lab.evidence import Answer, Context, Evidence, Trace
from tests.support.records import result_record

QUESTION = Question("q1", "Where is the lantern kept?", "Brinemouth", (), ("p1", "p2"), None, "toy")


def _answer(text: str = "Brinemouth") -> Answer:
    trace = Trace()
    with trace.step("retrieve:0") as step:
        step.add([Evidence("p1", "passage", "The lantern is kept in Brinemouth.")])
    with trace.step("generate"):
        pass
    items = [
        Evidence("p1", "passage", "The lantern is kept in Brinemouth.", source_ids=("p1",)),
        Evidence("ent:harbour", "entity", "the harbour", source_ids=("p2",)),
    ]
    return Answer(
        text, Context(items), trace, method="m", raw=f"[FINAL_ANSWER] {text} [/FINAL_ANSWER]"
    )


def test_the_table_holds_the_suites_metrics_in_the_order_tables_show_them():
    assert list(METRICS) == [
        *("em", "f1", "context_tokens", "passage_recall", "provenance_recall"),
        *("answer_coverage", "supporting_fact_recall", "context_llm_tokens", "format_compliance"),
    ]
    assert [m.label for m in answer_metrics()] == ["EM", "F1"]
    # the committed tables' column order follows from the table's order
    assert CONTEXT_COLUMNS == tuple(m.name for m in context_metrics()) == tuple(list(METRICS)[2:])
    assert MAIN_VIEW[:5] == ["method", "n", "reader", "EM [95% CI]", "F1 [95% CI]"]
    assert all(m.help and m.kind in table.KINDS for m in METRICS.values())
    assert not any(m.needs_judge for m in METRICS.values())  # the judged scores live apart


def test_a_row_needs_a_known_kind_and_a_way_to_get_its_values():
    with pytest.raises(ValueError, match="kind 'score'"):
        Metric("x", "X", "score", "help", of=lambda x: 1)
    with pytest.raises(ValueError, match="no per-record function"):
        Metric("x", "X", "context", "help")
    with pytest.raises(ValueError, match="no per-record function"):  # stored needs `of`
        Metric("x", "X", "context", "help", aggregate=len, stored=True)


def test_a_rows_summary_is_its_aggregate_or_the_mean_with_older_values():
    records = pd.DataFrame({"provenance_recall": [1.0, None], "support_recall": [0.0, 0.5]})
    assert METRICS["provenance_recall"].summary(records) == 0.75  # the second from the older
    assert METRICS["provenance_recall"].summary(records.drop(columns="support_recall")) == 1.0
    assert math.isnan(METRICS["passage_recall"].summary(records))  # no column, no older one
    replies = pd.DataFrame({"raw": ["[FINAL_ANSWER] B [/FINAL_ANSWER]", "B"], "gold": [["B"]] * 2})
    assert METRICS["format_compliance"].summary(replies) == 0.5  # its own aggregate


def test_answer_scores_score_an_answer_against_its_gold_and_leave_others_empty():
    rec = {"gold": ["Mika Häkkinen"], "answer": "Mika Hakkinen", "evidence_only": False}
    assert answer_scores(rec) == {"em": 0.0, "f1": 0.5}
    assert answer_scores(rec | {"answer": "mika häkkinen."}) == {"em": 1.0, "f1": 1.0}
    assert answer_scores(rec | {"gold": []}) == {"em": None, "f1": None}  # pairwise-judged set
    assert answer_scores(rec | {"evidence_only": True, "answer": None}) == {"em": None, "f1": None}


def test_a_record_carries_every_rows_value_computed_from_the_live_answer():
    rec = record(QUESTION, _answer())
    assert {k: rec[k] for k in ("em", "f1", "passage_recall", "provenance_recall")} == {
        "em": 1.0,
        "f1": 1.0,
        "passage_recall": 0.5,  # p2 only reached the context through an entity
        "provenance_recall": 1.0,
    }
    assert rec["context_tokens"] == _answer().context.tokens and rec["answer_coverage"] is True
    assert "format_compliance" not in rec  # an aggregate over replies, not a record column
    scored = record_columns(RecordInput(rec, QUESTION, {}, _answer()))
    assert list(rec)[-len(scored) :] == list(scored)  # after the record's own fields
    evidence_only = record(QUESTION, _answer(), evidence_only=True)
    assert (evidence_only["em"], evidence_only["f1"], evidence_only["answer"]) == (None,) * 3


# ------------------------------------------------------------------ a new metric is a row
def _answer_words(inputs: RecordInput) -> int | None:
    """A toy answer score: the answer's length in words."""
    answer = inputs.record.get("answer")
    return None if answer is None else len(str(answer).split())


def _passage_items(inputs: RecordInput) -> int | None:
    """A toy context metric: how many passage ids the context holds (from a stored record)."""
    ids = inputs.record.get("context_ids")
    return sum("#" in i or ":" not in i for i in ids) if isinstance(ids, list) else None


WORDS = Metric("answer_words", "Words", "answer", "the answer's length in words", of=_answer_words)
PASSAGES = Metric(
    "passage_items",
    "passage items",
    "context",
    "passages in the context",
    of=_passage_items,
    stored=True,
)


@pytest.fixture
def toy_rows(monkeypatch):
    """The table with the two toy rows added (as their rows in table.py would add them)."""
    monkeypatch.setitem(METRICS, WORDS.name, WORDS)
    monkeypatch.setitem(METRICS, PASSAGES.name, PASSAGES)


def test_a_new_row_reaches_records_and_their_completion(toy_rows):
    rec = record(QUESTION, _answer("the Brinemouth harbour"))
    assert (rec["answer_words"], rec["passage_items"]) == (3, 1)
    assert record(QUESTION, _answer(), evidence_only=True)["answer_words"] is None
    assert answer_scores(rec)["answer_words"] == 3  # rescore and reread recompute it
    # a record written before the row gets it when read back, one that has it keeps its value
    old = pd.DataFrame([result_record("m", 0, context_ids=["p1", "p2#0", "ent:x"])])
    assert with_metrics(old)["passage_items"].tolist() == [2]
    held = old.assign(passage_items=[7])
    assert with_metrics(held)["passage_items"].tolist() == [7]


def test_a_new_row_reaches_the_tables(toy_rows):
    frame = pd.DataFrame(
        [
            result_record("m", i, answer=a, context_ids=ids, em=1.0, f1=1.0)
            for i, (a, ids) in enumerate([("a b", ["p1"]), ("c", ["p1", "p2"])])
        ]
    )
    frame = with_metrics(frame).assign(answer_words=[2, 1])
    main = main_table(frame, ["m"], n_resamples=200)
    assert list(main.columns[3:11]) == [
        *("EM", "EM_low", "EM_high", "EM [95% CI]", "F1", "F1_low", "F1_high", "F1 [95% CI]"),
    ]
    assert main.loc[0, "Words"] == 1.5 and "Words [95% CI]" in main
    assert main.loc[0, "passage_items"] == 1.5  # a context column, after the suite's own
    assert list(main.columns).index("passage_items") > list(main.columns).index("context_tokens")
    assert context_columns(frame)["passage_items"] == 1.5
    assert with_context(pd.DataFrame({"method": ["m"]}), frame).loc[0, "passage_items"] == 1.5
    combined = main_table_by_dataset({"toy": main}, ["m"])
    assert {"toy Words [95% CI]", "toy passage_items"} <= set(combined.columns)
    docs = main_table_markdown(combined)
    assert "toy Words" in docs and "toy passage items" in docs  # the row's label


def test_rescore_recomputes_a_new_answer_row(toy_rows, tmp_path):
    settings = replace(load_settings(), results_dir=tmp_path)
    (tmp_path / "s").mkdir()
    stored = {"id": "q1", "gold": ["Brinemouth"], "raw": "Answer: in Brinemouth", "answer": "x"}
    (tmp_path / "s" / "m.jsonl").write_text(json.dumps(stored | {"em": 0.0}) + "\n")
    assert rescore("s", settings) == {"m": 1}
    (rec,) = [json.loads(line) for line in (tmp_path / "s" / "m.jsonl").read_text().splitlines()]
    assert rec["answer"] == "in Brinemouth"
    assert (rec["em"], rec["f1"], rec["answer_words"]) == (0.0, pytest.approx(2 / 3), 2)


def test_a_judged_row_is_left_to_its_judge(monkeypatch):
    def judge(inputs: RecordInput) -> float:
        raise AssertionError("a judged metric is never computed by the record writers")

    judged = Metric(
        "judged",
        "Judged",
        "answer",
        "an LLM judge's verdict",
        of=judge,
        stored=True,
        needs_judge=True,
    )
    monkeypatch.setitem(METRICS, judged.name, judged)
    assert "judged" not in record(QUESTION, _answer())
    assert "judged" not in answer_scores({"gold": ["B"], "answer": "B"})
    assert "judged" not in with_metrics(pd.DataFrame([result_record("m", 0)]))
