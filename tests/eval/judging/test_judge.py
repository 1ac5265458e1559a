"""ace_lab.eval.judging.judge: both-order judging, order-consistency, fallbacks and win rates."""

from __future__ import annotations

import json

import pytest

from ace_lab.eval.judging.judge import CRITERIA, PairVerdict, judge_pair, tie_verdict, win_rates
from ace_lab.llm import LLM
from tests.support.scripted import ScriptedClient

QUERY = "What themes run through the corpus?"
A = "Answer from system A: trade, migration and war."
B = "Answer from system B: trade."


def _verdict(*winners: str) -> str:
    """Judge output naming ``winners`` for the criteria in order (one winner: all criteria)."""
    winners = winners * len(CRITERIA) if len(winners) == 1 else winners
    return json.dumps(
        {
            c: {"winner": w, "explanation": f"{c} reason"}
            for c, w in zip(CRITERIA, winners, strict=True)
        }
    )


def _judge(settings, script: list[str]) -> tuple[PairVerdict, ScriptedClient]:
    client = ScriptedClient(script)
    return judge_pair(LLM(settings, client=client), QUERY, A, B), client


def _user_message(request: dict) -> str:
    return request["messages"][-1]["content"]


def test_consistent_verdicts_win_and_second_request_swaps_answers(settings):
    # a is Answer 1 first, then Answer 2: a judge preferring a says "Answer 1" then "Answer 2".
    verdict, client = _judge(settings, [_verdict("Answer 1"), _verdict("Answer 2")])
    assert verdict.outcomes == dict.fromkeys(CRITERIA, "a")
    assert verdict.fallbacks == ()
    assert len(client.requests) == 2
    first, second = (_user_message(r) for r in client.requests)
    assert QUERY in first and QUERY in second
    assert first.index(A) < first.index(B)
    assert second.index(B) < second.index(A)
    assert second.replace(A, "<x>").replace(B, A).replace("<x>", B) == first


def test_b_wins_when_both_orders_prefer_b(settings):
    verdict, _ = _judge(settings, [_verdict("Answer 2"), _verdict("Answer 1")])
    assert verdict.outcomes == dict.fromkeys(CRITERIA, "b")


def test_inconsistent_orders_are_ties_per_criterion(settings):
    # Position bias on comprehensiveness and diversity (Answer 1 both times), agreement that a
    # is more empowering, a tie in one order on overall.
    verdict, _ = _judge(
        settings,
        [
            _verdict("Answer 1", "Answer 1", "Answer 1", "Tie"),
            _verdict("Answer 1", "Answer 1", "Answer 2", "Answer 2"),
        ],
    )
    assert verdict.outcomes == {
        "comprehensiveness": "tie",
        "diversity": "tie",
        "empowerment": "a",
        "overall": "tie",
    }


def test_near_miss_winner_labels_are_accepted(settings):
    verdict, _ = _judge(settings, [_verdict("answer 1"), _verdict("ANSWER_2")])
    assert verdict.outcomes == dict.fromkeys(CRITERIA, "a")


def test_malformed_json_in_one_order_is_a_recorded_tie(settings):
    # Three failed attempts (LLM.json's default) in the b-first order.
    verdict, client = _judge(settings, [_verdict("Answer 1"), "not json", "{", "{'winner': 1}"])
    assert len(client.requests) == 4
    assert verdict.fallbacks == ("b_first",)
    assert verdict.outcomes == dict.fromkeys(CRITERIA, "tie")
    assert verdict.a_first.overall.winner == "Answer 1"
    assert verdict.b_first == tie_verdict()


def test_win_rates_counts_ties_as_half():
    tie = tie_verdict()

    def pair(outcome: str, fallbacks: tuple[str, ...] = ()) -> PairVerdict:
        return PairVerdict(QUERY, dict.fromkeys(CRITERIA, outcome), tie, tie, fallbacks)

    verdicts = [pair("a"), pair("a"), pair("b"), pair("tie", ("a_first",))]
    table = win_rates(verdicts)
    assert list(table.index) == list(CRITERIA)
    row = table.loc["overall"]
    assert (row.wins_a, row.wins_b, row.ties, row.n, row.fallbacks) == (2, 1, 1, 4, 1)
    assert row.win_rate_a == pytest.approx((2 + 0.5) / 4)
    assert 0.0 <= row.win_rate_low < row.win_rate_a < row.win_rate_high <= 1.0
    assert win_rates([])["win_rate_a"].isna().all()


def test_first_shown_measures_position_bias_without_fallback_orders():
    from ace_lab.eval.judging.judge import JudgeVerdict

    def pair(a_first: str, b_first: str, fallbacks: tuple[str, ...] = ()) -> PairVerdict:
        verdicts = (JudgeVerdict.model_validate_json(_verdict(w)) for w in (a_first, b_first))
        return PairVerdict(QUERY, dict.fromkeys(CRITERIA, "tie"), *verdicts, fallbacks)

    biased, fair = pair("Answer 1", "Answer 1"), pair("Answer 1", "Answer 2")
    assert win_rates([biased])["first_shown"].eq(1.0).all()
    assert win_rates([biased, fair])["first_shown"].eq(0.75).all()
    broken = pair("Answer 2", "Tie", ("b_first",))  # the fallback order is left out
    assert win_rates([broken])["first_shown"].eq(0.0).all()


# ------------------------------------------------------------------ regressions (issue 13)
def test_hostile_judge_output_is_a_tie_not_an_aborted_run(settings):
    """A deeply nested or lone-surrogate verdict raised out of judge_pair (and so out of a
    whole judging run through llm.map); now the order falls back to a tie."""
    deep = "[" * 2000 + "]" * 2000
    surrogate = _verdict("Answer 1").replace("overall reason", "\\ud800")
    verdict, client = _judge(settings, [deep] * 3 + [surrogate] * 3)
    assert verdict.fallbacks == ("a_first", "b_first") and len(client.requests) == 6
    assert verdict.outcomes == dict.fromkeys(CRITERIA, "tie")
    assert verdict.a_first == tie_verdict()
