"""ace_lab.arc.answer: where each context item came from (model-written Cypher, the scan
template, the fallback) and the shares of the context's tokens the record keeps."""

from __future__ import annotations

import pytest

from ace_lab.arc.answer import SOURCES, context_provenance, context_source
from ace_lab.evidence import Evidence


def item(i: str, text: str, **meta) -> Evidence:
    return Evidence(i, "passage", text, meta=meta)


def test_each_item_is_credited_to_the_query_that_first_found_it_or_the_fallback():
    templated = {"p1.s1"}
    assert context_source(item("a", "x", witness_query="p1.s0"), templated) == "model"
    assert context_source(item("b", "x", witness_query="p1.s1"), templated) == "template"
    assert context_source(item("c", "x", fallback="retrieved passages"), templated) == "fallback"


def test_shares_are_of_item_tokens_and_sum_to_one():
    items = [
        item("a", "one two three four", witness_query="p1.s0"),
        item("b", "five six", witness_query="p1.s1"),
        item("c", "seven eight nine ten eleven twelve", fallback="retrieved passages"),
    ]
    out = context_provenance(items, {"p1.s1"})
    tokens = [i.tokens for i in items]
    assert out["context_from_model"] == round(tokens[0] / sum(tokens), 4)
    assert out["context_from_fallback"] == round(tokens[2] / sum(tokens), 4)
    assert sum(out[f"context_from_{s}"] for s in SOURCES) == pytest.approx(1.0, abs=1e-3)
    assert [out[f"context_items_{s}"] for s in SOURCES] == [1, 1, 1]


def test_an_empty_context_is_all_zero():
    out = context_provenance([], {"p1.s0"})
    assert set(out.values()) == {0} and len(out) == 2 * len(SOURCES)


def test_a_judgement_keeps_the_verdict_the_model_wrote_and_says_why_it_stops(settings):
    from ace_lab.arc.answer import Judgement, judge_sufficiency, stop_reason
    from ace_lab.llm import LLM
    from tests.support.replies import arc_reply
    from tests.support.scripted import ScriptedClient

    def judge(reply, temperature=0.0):
        client = ScriptedClient(arc_reply(sufficient=reply))
        llm = LLM(settings, client=client)
        judged = judge_sufficiency(llm, f"q{id(reply)}", "a", "ctx", temperature)
        return judged, client.requests[-1]["temperature"]

    said_yes, greedy = judge({"sufficient": True, "follow_up": "Where is X?"})
    assert said_yes == Judgement(True, "", False, True) and greedy == 0.0
    assert stop_reason(said_yes) == "sufficient"
    no_question, sampled = judge({"sufficient": False, "follow_up": ""}, 1.0)
    assert no_question == Judgement(True, "", False, False) and sampled == 1.0
    assert stop_reason(no_question) == "no follow-up"
    asks, _ = judge({"sufficient": False, "follow_up": "Where is X?"})
    assert asks == Judgement(False, "Where is X?", False, False)
    unusable, _ = judge("nonsense")
    assert unusable.fallback and unusable.said_sufficient is None
    assert stop_reason(unusable) == "judgement unusable"
