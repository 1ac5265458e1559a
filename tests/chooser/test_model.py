"""The chooser's model: shrunk per-form means, the utility rule, λ's written form, JSON."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ace_lab.chooser import ALL, ChooserModel, fit, lam_label, parse_lam, question_form


def _frame(rows: list[tuple[str, str, str, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["id", "bucket", "method", "accuracy", "tokens"])


def _two_methods() -> pd.DataFrame:
    # "big" is better on "hard" questions, "small" on "easy" ones; "small" is always cheaper
    rows = []
    for i in range(4):
        rows += [(f"h{i}", "hard", "big", 1.0, 3000.0), (f"h{i}", "hard", "small", 0.0, 1000.0)]
        rows += [(f"e{i}", "easy", "big", 0.5, 3000.0), (f"e{i}", "easy", "small", 1.0, 1000.0)]
    return _frame(rows)


def test_forms_of_typical_questions():
    assert question_form("Were Scott Derrickson and Ed Wood of the same nationality?") == "yes_no"
    assert question_form("Which film came out first, Blind Shaft or The Mask Of Fu Manchu?") == (
        "comparison"
    )
    assert question_form("When was the director of Polish-Russian War born?") == "numeric"
    assert question_form("Why did the Sioux fight the Chippewas?") == "explain"
    assert question_form("Who is the mother of the director of film Polish-Russian War?") == "who"
    assert question_form("Where was the composer of Amadigi born?") == "what_where"
    assert question_form("") == "other"


def test_per_form_means_are_shrunk_towards_the_method_mean():
    model = fit(_two_methods(), shrinkage=4.0)
    assert model.accuracy["big"][ALL] == pytest.approx(0.75)
    # (4 · 1.0 + 4 · 0.75) / (4 + 4)
    assert model.accuracy["big"]["hard"] == pytest.approx(0.875)
    assert model.counts == {"easy": 4, "hard": 4}
    assert model.n == 8


def test_lambda_zero_takes_the_best_expected_accuracy_per_form():
    model = fit(_two_methods(), shrinkage=0.0)
    assert model.choose("hard", 0.0) == "big"
    assert model.choose("easy", 0.0) == "small"
    assert model.choose("unseen", 0.0) == "big"  # an unseen form falls back to the mean


def test_lambda_infinite_takes_the_cheapest_method():
    model = fit(_two_methods(), shrinkage=0.0)
    assert model.choose("hard", math.inf) == "small"
    assert model.scores("hard", math.inf) == {"big": -3000.0, "small": -1000.0}


def test_a_large_lambda_trades_accuracy_for_tokens():
    model = fit(_two_methods(), shrinkage=0.0)
    # big is +1.0 accuracy on hard questions for 2,000 more tokens: worth it below 5e-4
    assert model.choose("hard", parse_lam("400")) == "big"
    assert model.choose("hard", parse_lam("600")) == "small"


def test_no_features_means_one_bucket():
    model = fit(_two_methods(), feature="none")
    assert model.bucket("Who wrote it?") == ALL
    assert model.choose(ALL, 0.0) == "big"


def test_lambda_written_form_round_trips():
    assert parse_lam("20") == pytest.approx(2e-5)
    assert math.isinf(parse_lam("inf"))
    assert lam_label(parse_lam("20")) == "20"
    assert lam_label(math.inf) == "inf"
    with pytest.raises(KeyError, match="per million"):
        parse_lam("2e-5")


def test_json_round_trip_keeps_every_field():
    model = fit(_two_methods(), lam=math.inf, metric="f1", slices=("a",), command="make x")
    again = ChooserModel.from_json(model.to_json())
    assert again == model
    assert '"lam": "inf"' in model.to_json()


def test_restricted_keeps_only_allowed_methods():
    model = fit(_two_methods())
    assert model.restricted(["small"]).methods == ("small",)
    with pytest.raises(ValueError, match="none of the chooser's methods"):
        model.restricted(["other"])
