"""ace_lab.eval.graphragbench.rouge: ROUGE-L by hand (the official package's stemming and
LCS)."""

from __future__ import annotations

import pytest

from ace_lab.eval.graphragbench.rouge import (
    lcs_length,
    porter_stem,
    rouge_l,
    rouge_score,
    rouge_tokens,
)


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
