"""Cross-validation of the chooser never scores a question the model was fitted on."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ace_lab.chooser import crossval
from ace_lab.chooser.crossval import held_out, leave_one_out, oracle, summarize


def _frame(rows: list[tuple[str, str, str, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["id", "bucket", "method", "accuracy", "tokens"])


def _unique_buckets(a_wins: int = 6) -> pd.DataFrame:
    """Each question is its own bucket: A wins the first ``a_wins`` of ten questions, B the
    others (B is cheaper)."""
    rows = []
    for i in range(10):
        a_won = i < a_wins
        rows.append((f"q{i}", f"q{i}", "A", float(a_won), 2000.0))
        rows.append((f"q{i}", f"q{i}", "B", float(not a_won), 1000.0))
    return _frame(rows)


def test_leave_one_out_cannot_see_the_held_out_question():
    # a model that had seen a question's own bucket would pick its winner (accuracy 1.0);
    # without it the bucket is unseen and every pick falls back to A, the better on average
    frame = _unique_buckets()
    choices = leave_one_out(frame, [0.0], shrinkage=0.0)
    assert set(choices["chosen"]) == {"A"}
    assert choices["accuracy"].mean() == pytest.approx(0.6)
    assert oracle(frame, [0.0])["accuracy"].mean() == pytest.approx(1.0)


def test_every_fit_leaves_its_scored_question_out(monkeypatch):
    seen: list[set[str]] = []
    real_fit = crossval.fit

    def spy(train: pd.DataFrame, **kwargs: object):
        seen.append(set(train["id"]))
        return real_fit(train, **kwargs)

    monkeypatch.setattr(crossval, "fit", spy)
    frame = _unique_buckets()
    choices = leave_one_out(frame, [0.0, math.inf], shrinkage=0.0)
    ids = list(frame["id"].drop_duplicates())
    assert len(seen) == len(ids)
    for qid, train in zip(ids, seen, strict=True):
        assert qid not in train and len(train) == len(ids) - 1
    assert len(choices) == 2 * len(ids)


def test_lambda_infinite_picks_the_cheapest_method():
    choices = leave_one_out(_unique_buckets(), [math.inf], shrinkage=0.0)
    assert set(choices["chosen"]) == {"B"}
    assert choices["tokens"].mean() == 1000.0


def test_lambda_zero_with_a_perfect_feature_matches_the_oracle():
    # the bucket names the method that wins the question: a perfect feature
    rows = []
    for i in range(12):
        winner = "A" if i % 3 == 0 else ("B" if i % 3 == 1 else "C")
        for method in ("A", "B", "C"):
            rows.append((f"q{i}", winner, method, float(method == winner), 1000.0))
    frame = _frame(rows)
    choices = leave_one_out(frame, [0.0], shrinkage=0.0)
    best = oracle(frame, [0.0])
    assert list(choices["chosen"]) == list(best["chosen"])
    assert choices["accuracy"].mean() == best["accuracy"].mean() == 1.0


def test_held_out_refuses_shared_questions_and_uses_common_methods():
    frame = _unique_buckets()
    with pytest.raises(ValueError, match="also in the training frame"):
        held_out(frame, frame, [0.0])
    train = frame[frame["id"].isin(["q0", "q1", "q2"])]
    test = frame[~frame["id"].isin(["q0", "q1", "q2"])]
    test = pd.concat([test, _frame([("q9", "q9", "Z", 1.0, 1.0)])])
    choices = held_out(train, test, [0.0], shrinkage=0.0)
    assert set(choices["chosen"]) == {"A"}  # Z was never seen in training


def test_summarize_counts_picks_per_lambda():
    choices = leave_one_out(_unique_buckets(), [0.0, math.inf], shrinkage=0.0)
    table = summarize(choices)
    assert list(table["n"]) == [10, 10]
    assert list(table["picked"]) == ["A 100%", "B 100%"]


def test_k_fold_scores_each_question_once_per_repeat_on_a_model_without_it(monkeypatch):
    fitted: list[set[str]] = []
    real_fit = crossval.fit

    def spy(train: pd.DataFrame, **kwargs: object):
        fitted.append(set(train["id"]))
        return real_fit(train, **kwargs)

    monkeypatch.setattr(crossval, "fit", spy)
    frame = _unique_buckets(a_wins=8)  # A leads B on any eight questions
    choices = crossval.k_fold(frame, [0.0], folds=5, repeats=3, shrinkage=0.0)
    assert len(choices) == 3 * 10 and choices.groupby("repeat")["id"].nunique().eq(10).all()
    assert len(fitted) == 15 and all(len(train) == 8 for train in fitted)
    # every pick falls back to A: no fold's model saw the question's own bucket
    assert set(choices["chosen"]) == {"A"} and choices["accuracy"].mean() == 0.8
    again = crossval.k_fold(frame, [0.0], folds=5, repeats=3, shrinkage=0.0)
    pd.testing.assert_frame_equal(choices, again)
