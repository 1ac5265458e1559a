"""ace_lab.eval.graphragbench.judge: Answer Correctness (factuality and similarity) and Coverage,
the judged metrics' control flow with scripted judge replies (malformed output -> the documented
fallback)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from ace_lab.eval.graphragbench.judge import (
    answer_correctness,
    coverage_score,
    fbeta,
    semantic_similarity,
)
from tests.support.grb_judge import FixedEmbedder, Judge, statements_reply
from tests.support.scripted import scripted_llm

#: Judged metrics embed with the default embedder: its cache is the test's own.
pytestmark = pytest.mark.usefixtures("private_embedding_cache")


# ------------------------------------------------------------------ Answer Correctness
def test_answer_correctness_combines_f1_and_similarity(settings) -> None:
    verdict = {
        "TP": [{"statement": "A1.", "reason": "r"}, {"statement": "A2.", "reason": "r"}],
        "FP": [],
        "FN": [{"statement": "G3.", "reason": "r"}],
    }
    judge = Judge(grb_statements=statements_reply, grb_correctness=json.dumps(verdict))
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
    judge = Judge(grb_statements=statements_reply, grb_correctness="the answer is mostly right")
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
    judge = Judge(grb_statements=statements_reply, grb_correctness=json.dumps(verdict))
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
