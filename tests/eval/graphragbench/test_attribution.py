"""ace_lab.eval.graphragbench.attribution: Evidence Recall, Context Relevancy and Faithfulness
with scripted judge replies (malformed output -> the documented fallback), and every judged
metric's verdicts per statement."""

from __future__ import annotations

import json
import math

import pytest

from ace_lab.eval.graphragbench.attribution import (
    context_relevance,
    evidence_recall,
    faithfulness,
)
from ace_lab.eval.graphragbench.judge import (
    answer_correctness,
    coverage_score,
)
from tests.support.grb_judge import FixedEmbedder, Judge, statements_reply
from tests.support.scripted import scripted_llm

#: Judged metrics embed with the default embedder: its cache is the test's own.
pytestmark = pytest.mark.usefixtures("private_embedding_cache")


# ------------------------------------------------------------------ Evidence Recall
def test_evidence_recall_counts_valid_labels(settings) -> None:
    items = [
        {"statement": "e1", "reason": "r", "attributed": 1},
        {"statement": "e2", "reason": "r", "attributed": 0},
        {"statement": "e3", "reason": "r", "attributed": 1},
        {"statement": "e4", "reason": "r", "attributed": 2},  # not 0/1: dropped
    ]
    judge = Judge(grb_evidence_recall=json.dumps({"classifications": items}))
    llm = scripted_llm(settings, judge)
    out = evidence_recall(llm, "Q?", ["ctx one", "ctx two"], ["e1", "e2", "e3", "e4"])
    assert out["evidence_recall"] == pytest.approx(2 / 3) and out["labelled"] == 3
    (user,) = [u for _, u in judge.asked]
    assert '"ctx one\nctx two"' in user and '["e1", "e2", "e3", "e4"]' in user
    assert out["judge_model"] == llm.model


def test_evidence_recall_fallbacks(settings) -> None:
    judge = Judge(grb_evidence_recall='{"classifications": "oops"')
    llm = scripted_llm(settings, judge)
    out = evidence_recall(llm, "Q?", ["ctx"], ["e1"])
    assert math.isnan(out["evidence_recall"]) and out["fallbacks"] == ["attribution"]
    empty = evidence_recall(llm, "Q?", ["  "], ["e1"])
    assert empty["evidence_recall"] == 0.0
    assert judge.count("grb_evidence_recall") == 2  # the blank context asked nothing


def test_evidence_recall_truncates_the_context(settings) -> None:
    judge = Judge(grb_evidence_recall='{"classifications": []}')
    evidence_recall(scripted_llm(settings, judge), "Q?", ["x" * 30_000], ["e"])
    (user,) = [u for _, u in judge.asked]
    assert "x" * 20_000 in user and "x" * 20_001 not in user


# ------------------------------------------------------------------ Context Relevancy
def test_context_relevance_averages_two_ratings(settings) -> None:
    judge = Judge(grb_context_relevance=['{"score": 2}', '{"score": 1}'])
    out = context_relevance(scripted_llm(settings, judge), "Q?", ["some context"])
    assert out["ratings"] == [2.0, 1.0] and out["context_relevancy"] == pytest.approx(0.75)


def test_context_relevance_drops_invalid_ratings(settings) -> None:
    # first draw malformed twice (both attempts), second draw out of range: nothing valid
    judge = Judge(grb_context_relevance=["no", "no", '{"score": 5}'])
    out = context_relevance(scripted_llm(settings, judge), "Q?", ["ctx"])
    assert out["ratings"] == [None, None] and math.isnan(out["context_relevancy"])
    assert out["fallbacks"] == ["rating1", "rating2"]
    judge = Judge(grb_context_relevance=["no", "no", '{"score": 1}'])
    out = context_relevance(scripted_llm(settings, judge), "Another Q?", ["ctx"])  # not cached
    assert out["context_relevancy"] == pytest.approx(0.5) and out["fallbacks"] == ["rating1"]


def test_context_relevance_edge_cases_ask_nothing(settings) -> None:
    judge = Judge(grb_context_relevance='{"score": 2}')
    llm = scripted_llm(settings, judge)
    assert context_relevance(llm, "Who won?", [])["context_relevancy"] == 0.0
    assert context_relevance(llm, "Who won the cup?", ["won the cup"])["context_relevancy"] == 0.0
    assert judge.asked == []


# ------------------------------------------------------------------ Faithfulness
def test_faithfulness_is_the_share_of_answer_statements_the_context_supports(settings) -> None:
    verdicts = [
        {"statement": "A1.", "reason": "stated", "verdict": 1},
        {"statement": "A2.", "reason": "absent", "verdict": 0},
        {"statement": "A3.", "reason": "odd", "verdict": 2},  # not 0/1: not counted
    ]
    judge = Judge(
        grb_statements=statements_reply, grb_faithfulness=json.dumps({"classifications": verdicts})
    )
    llm = scripted_llm(settings, judge)
    out = faithfulness(llm, "Q" * 600 + "?", "A1. A2. A3.", ["ctx one", "x" * 12_000])
    assert out["faithfulness"] == pytest.approx(0.5) and out["statements"] == 3
    # every verdict is kept for the audit, the invalid one too, with its reason
    assert out["verdicts"][1] == {"statement": "A2.", "verdict": 0, "reason": "absent"}
    assert len(out["verdicts"]) == 3
    (split,) = [u for name, u in judge.asked if name == "grb_statements"]
    assert "Q" * 500 in split and "Q" * 501 not in split  # the reference's cut of the question
    (judged,) = [u for name, u in judge.asked if name == "grb_faithfulness"]
    assert "ctx one\nx" in judged and "x" * 9_992 in judged and "x" * 9_993 not in judged


def test_faithfulness_edge_cases(settings) -> None:
    judge = Judge(grb_statements="no json", grb_faithfulness='{"classifications": []}')
    llm = scripted_llm(settings, judge)
    assert faithfulness(llm, "Q?", "", ["ctx"])["faithfulness"] == 1.0  # empty answer
    failed = faithfulness(llm, "Q?", "Some answer.", ["ctx"])
    assert math.isnan(failed["faithfulness"]) and failed["fallbacks"] == ["statements"]
    judge = Judge(grb_statements=statements_reply, grb_faithfulness='{"classifications": []}')
    llm = scripted_llm(settings, judge)
    empty = faithfulness(llm, "Q?", "A1.", ["  "])
    assert empty["faithfulness"] == 0.0 and empty["verdicts"][0]["verdict"] == 0
    assert judge.count("grb_faithfulness") == 0
    assert math.isnan(faithfulness(llm, "Q2?", "A1.", ["ctx"])["faithfulness"])


def test_each_judged_metric_returns_its_verdicts_per_statement(settings) -> None:
    classes = {
        "TP": [{"statement": "A1.", "reason": "same"}],
        "FP": [],
        "FN": [{"statement": "G2.", "reason": "missing"}],
    }
    labels = [{"statement": "e1", "reason": "named", "attributed": 1}]
    judge = Judge(
        grb_statements=statements_reply,
        grb_correctness=json.dumps(classes),
        grb_evidence_recall=json.dumps({"classifications": labels}),
        grb_coverage_facts='{"facts": ["F1"]}',
        grb_coverage='{"classifications": [{"statement": "F1", "attributed": 0}]}',
        grb_context_relevance='{"score": 1}',
    )
    llm = scripted_llm(settings, judge)
    acc = answer_correctness(llm, "Q?", "A1.", "G1. G2.", FixedEmbedder())
    assert acc["verdicts"] == [
        {"statement": "A1.", "verdict": "TP", "reason": "same"},
        {"statement": "G2.", "verdict": "FN", "reason": "missing"},
    ]
    recall = evidence_recall(llm, "Q?", ["ctx"], ["e1"])
    assert recall["verdicts"] == [{"statement": "e1", "verdict": 1, "reason": "named"}]
    cover = coverage_score(llm, "Q?", "A.", "G.")
    assert cover["verdicts"] == [{"statement": "F1", "verdict": 0, "reason": ""}]
    ratings = context_relevance(llm, "Q?", ["ctx"])["verdicts"]
    assert [v["verdict"] for v in ratings] == [1.0, 1.0] and "rating 2" in ratings[1]["statement"]
