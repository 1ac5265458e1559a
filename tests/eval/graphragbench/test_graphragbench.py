"""GraphRAG-Bench metrics (ace_lab.eval.graphragbench*): ROUGE-L by hand, the judged metrics'
control flow with scripted judge replies (malformed output -> the documented fallback), which
metrics each question type gets, and the query-count-weighted overall."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ace_lab.data import Question
from ace_lab.eval.graphragbench import metrics_for, score_question, summarize, weighted_overall
from ace_lab.eval.graphragbench.attribution import (
    context_relevance,
    evidence_recall,
    faithfulness,
)
from ace_lab.eval.graphragbench.judge import (
    answer_correctness,
    coverage_score,
    fbeta,
    semantic_similarity,
)
from ace_lab.eval.graphragbench.rouge import (
    lcs_length,
    porter_stem,
    rouge_l,
    rouge_score,
    rouge_tokens,
)
from ace_lab.eval.graphragbench.scoring import OVERALL
from ace_lab.prompts import load_prompt
from tests.support.scripted import scripted_llm

PROMPTS = (
    "grb_statements",
    "grb_correctness",
    "grb_coverage_facts",
    "grb_coverage",
    "grb_evidence_recall",
    "grb_context_relevance",
    "grb_faithfulness",
)


@pytest.fixture(autouse=True)
def _private_embedding_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACE_LAB_CACHE_DIR", str(tmp_path / "embed-cache"))


class Judge:
    """A scripted judge: per prompt, a list of replies served in order (the last one repeats),
    each a string or a callable of the user message. Records which prompts were asked."""

    def __init__(self, **replies: Any) -> None:
        self.replies = {
            name: list(r) if isinstance(r, list) else [r] for name, r in replies.items()
        }
        self.asked: list[tuple[str, str]] = []
        self.by_system = {load_prompt(name).system: name for name in PROMPTS}

    def __call__(self, kwargs: dict) -> str:
        name = self.by_system[kwargs["messages"][0]["content"]]
        user = kwargs["messages"][-1]["content"]
        self.asked.append((name, user))
        queue = self.replies[name]
        reply = queue.pop(0) if len(queue) > 1 else queue[0]
        return reply(user) if callable(reply) else reply

    def count(self, name: str) -> int:
        return sum(1 for asked, _ in self.asked if asked == name)


class FixedEmbedder:
    """Two texts: 'A…' on the x axis, anything else on the y axis (cosine 0, similarity 0.5)."""

    model_id = "fixed-test-embedder"
    dim = 2

    def encode(self, texts: list[str]) -> Any:
        return np.asarray([[1.0, 0.0] if t.startswith("A") else [0.0, 1.0] for t in texts])


def _statements(user: str) -> str:
    text = user.split("Answer: ", 1)[1]
    return json.dumps({"statements": [s.strip() + "." for s in text.split(".") if s.strip()]})


# ------------------------------------------------------------------ ROUGE-L by hand
def test_rouge_l_against_hand_computed_values() -> None:
    # target: the cat sat on the mat (6); prediction: the cat on a mat (5); LCS the-cat-on-mat
    score = rouge_l("The cat sat on the mat.", "the cat, on a MAT")
    assert (score.precision, score.recall) == (4 / 5, 4 / 6)
    assert score.fmeasure == pytest.approx(2 * 0.8 * (4 / 6) / (0.8 + 4 / 6))
    # stemming: running -> run, runs -> run, dogs -> dog; LCS of [run dog] and [the dog run] is 1
    assert rouge_tokens("Running dogs!") == ["run", "dog"]
    assert rouge_l("the dog runs", "running dogs").fmeasure == pytest.approx(0.4)
    assert rouge_score("running dogs", "the dog runs") == pytest.approx(0.4)
    assert rouge_score("", "gold") == 0.0 and rouge_score("x", "  ") == 0.0
    assert rouge_l("a b c d", "x y").fmeasure == 0.0
    assert lcs_length(list("abcbdab"), list("bdcaba")) == 4
    # short tokens are not stemmed (rouge-score stems only tokens longer than three characters)
    assert rouge_tokens("was has") == ["was", "has"] and porter_stem("caresses") == "caress"


# ------------------------------------------------------------------ Answer Correctness
def test_answer_correctness_combines_f1_and_similarity(settings) -> None:
    verdict = {
        "TP": [{"statement": "A1.", "reason": "r"}, {"statement": "A2.", "reason": "r"}],
        "FP": [],
        "FN": [{"statement": "G3.", "reason": "r"}],
    }
    judge = Judge(grb_statements=_statements, grb_correctness=json.dumps(verdict))
    llm = scripted_llm(settings, judge)
    out = answer_correctness(llm, "Q?", "A1. A2.", "G1. G2. G3.", FixedEmbedder())
    # the classification call sees both statement lists as the judge produced them
    (classify,) = [u for name, u in judge.asked if name == "grb_correctness"]
    assert '["A1.", "A2."]' in classify and '["G1.", "G2.", "G3."]' in classify
    assert (out["tp"], out["fp"], out["fn"]) == (2, 0, 1)
    f1 = 2 * 1.0 * (2 / 3) / (1.0 + 2 / 3)
    assert out["factuality"] == pytest.approx(f1, abs=1e-8)
    assert out["semantic_similarity"] == pytest.approx(0.5)
    assert out["answer_correctness"] == pytest.approx(0.75 * f1 + 0.25 * 0.5, abs=1e-8)
    assert out["judge_model"] == llm.model and out["embed_model"] == "fixed-test-embedder"
    assert out["fallbacks"] == []


class RoundingEmbedder:
    """Equal unit rows whose float32 dot product rounds a hair above 1 (as MiniLM's do)."""

    model_id = "rounding-test-embedder"
    dim = 3

    def encode(self, texts: list[str]) -> Any:
        row = np.asarray([0.6, 0.48, 0.64], dtype=np.float32)
        return np.stack([row / np.float32(0.99999994)] * len(texts))


def test_similarity_of_equal_texts_stays_within_one() -> None:
    vectors = RoundingEmbedder().encode(["a", "a"])
    assert float(np.dot(vectors[0], vectors[1])) > 1.0  # the rounding this guards against
    assert semantic_similarity("Same.", "Same.", RoundingEmbedder()) == 1.0


def test_fbeta_matches_the_reference_smoothing() -> None:
    assert fbeta(0, 0, 0) == 0.0
    assert fbeta(3, 0, 0) == pytest.approx(1.0, abs=1e-9)
    assert fbeta(1, 1, 1) == pytest.approx(0.5, abs=1e-9)


def test_malformed_classification_scores_zero_factuality(settings) -> None:
    judge = Judge(grb_statements=_statements, grb_correctness="the answer is mostly right")
    llm = scripted_llm(settings, judge)
    out = answer_correctness(llm, "Q?", "A1.", "G1.", FixedEmbedder())
    assert judge.count("grb_correctness") == 2  # retried once, then the default
    assert out["factuality"] == 0.0 and out["fallbacks"] == ["classification"]
    assert out["answer_correctness"] == pytest.approx(0.25 * 0.5)


def test_no_statements_on_either_side_is_full_factuality(settings) -> None:
    # the reference: both statement lists empty -> factuality 1.0 (parser fallback gives [])
    judge = Judge(grb_statements="not json at all")
    llm = scripted_llm(settings, judge)
    out = answer_correctness(llm, "Q?", "A1.", "A1.", FixedEmbedder())
    assert judge.count("grb_correctness") == 0
    assert out["factuality"] == 1.0
    assert out["fallbacks"] == ["answer_statements", "truth_statements"]
    assert out["answer_correctness"] == pytest.approx(0.75 + 0.25 * 1.0)


def test_empty_answer_needs_no_statement_call(settings) -> None:
    verdict = {"TP": [], "FP": [], "FN": [{"statement": "G1.", "reason": "missing"}]}
    judge = Judge(grb_statements=_statements, grb_correctness=json.dumps(verdict))
    out = answer_correctness(scripted_llm(settings, judge), "Q?", "", "G1.", FixedEmbedder())
    assert judge.count("grb_statements") == 1  # only the ground truth
    assert out["factuality"] == pytest.approx(0.0, abs=1e-9)


# ------------------------------------------------------------------ Coverage
def test_coverage_lists_facts_then_labels_them(settings) -> None:
    labels = [
        {"statement": "F1", "attributed": 1},
        {"statement": "F2", "attributed": 0},
        {"statement": "F3", "attributed": 0},
    ]
    judge = Judge(
        grb_coverage_facts='{"facts": ["F1", " ", "F2", "F3"]}',
        grb_coverage=json.dumps({"classifications": labels}),
    )
    out = coverage_score(scripted_llm(settings, judge), "Q?", "answer " * 2000, "G.")
    assert out["coverage_score"] == pytest.approx(1 / 3) and out["facts"] == 3
    (user,) = [u for name, u in judge.asked if name == "grb_coverage"]
    assert '["F1", "F2", "F3"]' in user and "answer " * 400 in user and len(user) < 3_300


def test_coverage_fallbacks(settings) -> None:
    judge = Judge(grb_coverage_facts="nothing", grb_coverage='{"classifications": []}')
    llm = scripted_llm(settings, judge)
    out = coverage_score(llm, "Q?", "A.", "G.")
    assert math.isnan(out["coverage_score"]) and out["fallbacks"] == ["facts"]
    assert judge.count("grb_coverage_facts") == 3 and judge.count("grb_coverage") == 0
    assert coverage_score(llm, "Q?", "A.", "  ")["coverage_score"] == 1.0


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
        grb_statements=_statements, grb_faithfulness=json.dumps({"classifications": verdicts})
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
    judge = Judge(grb_statements=_statements, grb_faithfulness='{"classifications": []}')
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
        grb_statements=_statements,
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
        grb_statements=_statements,
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
