"""ace_lab.eval.graphragbench.scoring: which metrics each question type gets, a question scored
by its type, the query-count-weighted overall, and every metric with the real smoke judge."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from ace_lab.data import Question
from ace_lab.eval.graphragbench import metrics_for, score_question, summarize, weighted_overall
from ace_lab.eval.graphragbench.scoring import OVERALL
from tests.support.grb_judge import FixedEmbedder, Judge, statements_reply
from tests.support.scripted import scripted_llm

#: Judged metrics embed with the default embedder: its cache is the test's own.
pytestmark = pytest.mark.usefixtures("private_embedding_cache")


# ------------------------------------------------------------------ per type and overall
def test_metrics_per_question_type() -> None:
    assert metrics_for("Fact Retrieval") == [
        "answer_correctness",
        "rouge_score",
        "evidence_recall",
        "context_relevancy",
    ]
    assert "rouge_score" in metrics_for("Complex Reasoning")
    assert "rouge_score" not in metrics_for("Contextual Summarize")
    assert "rouge_score" not in metrics_for("Creative Generation")
    assert metrics_for(None) == ["evidence_recall", "context_relevancy"]
    assert metrics_for("Fact Retrieval", include=["rouge_score"]) == ["rouge_score"]


def _question(kind: str) -> Question:
    extra = {"evidence_statements": ["A fact."]}
    return Question("q-" + kind[:2], "Q?", "A gold answer.", (), ("c1",), kind, "grb", extra)


def test_score_question_follows_the_type(settings) -> None:
    judge = Judge(
        grb_statements=statements_reply,
        grb_correctness='{"TP": [], "FP": [], "FN": []}',
        grb_evidence_recall="broken",
        grb_context_relevance='{"score": 1}',
        grb_coverage_facts='{"facts": ["F1", "F2"]}',
        grb_coverage='{"classifications": [{"statement": "F1", "attributed": 1}]}',
    )
    llm, emb = scripted_llm(settings, judge), FixedEmbedder()
    fact = score_question(llm, _question("Fact Retrieval"), "A gold answer.", ["ctx"], emb)
    assert fact["rouge_score"] == pytest.approx(1.0)
    assert math.isnan(fact["evidence_recall"]) and fact["context_relevancy"] == 0.5
    assert fact["fallbacks"] == {"evidence_recall": ["attribution"]}
    assert fact["judge_model"] == llm.model
    summary = score_question(llm, _question("Contextual Summarize"), "A.", ["ctx"], emb)
    assert "rouge_score" not in summary and "answer_correctness" in summary
    assert summary["coverage_score"] == 1.0 and "coverage_score" not in fact


def test_overall_is_weighted_by_query_count() -> None:
    scores = [
        *({"type": "Fact Retrieval", "answer_correctness": 1.0, "rouge_score": 0.5}
          for _ in range(3)),
        {"type": "Creative Generation", "answer_correctness": 0.0},
        {"type": "Creative Generation", "answer_correctness": float("nan")},  # not counted
    ]  # fmt: skip
    for row in scores:
        row["judge_model"], row["embed_model"] = "judge-x", "emb-y"
    table = summarize(scores)
    acc = table[table.metric == "answer_correctness"].set_index("type")
    assert list(acc.index) == ["Fact Retrieval", "Creative Generation", OVERALL]
    assert acc.loc["Creative Generation", "n"] == 1
    # per-type means 1.0 (n=3) and 0.0 (n=1): weighted 0.75, not the unweighted 0.5
    assert acc.loc[OVERALL, "mean"] == pytest.approx(0.75) and acc.loc[OVERALL, "n"] == 4
    assert set(acc["judge_model"]) == {"judge-x"} and set(acc["embed_model"]) == {"emb-y"}
    rouge = table[table.metric == "rouge_score"].set_index("type")
    assert list(rouge.index) == ["Fact Retrieval", OVERALL]
    assert rouge["judge_model"].isna().all()  # ROUGE-L needs no judge
    assert weighted_overall({"a": (0.2, 1), "b": (0.8, 3), "c": (0.0, 0)}) == pytest.approx(0.65)
    assert math.isnan(weighted_overall({}))
    assert Counter(table.metric) == {"answer_correctness": 3, "rouge_score": 2}


@pytest.mark.integration
def test_judged_metrics_with_the_smoke_model(settings) -> None:
    """End to end with the real smoke judge: every metric a number in range or NaN, named."""
    from ace_lab.llm import LLM, server

    llm = LLM(settings)
    question = _question("Fact Retrieval")
    try:
        row = score_question(llm, question, "A gold answer.", ["A fact. Another fact."])
    finally:
        server.stop(settings)
    for metric in metrics_for(question.type):
        value = row[metric]
        assert math.isnan(value) or 0.0 <= value <= 1.0, metric
    assert row["judge_model"] == llm.model and row["embed_model"]
