"""ace_lab.mosaic.policy and .analyzer: validation, clamping, defaults, the signal mapping, and
1,000 random analyzer outputs that never crash and always yield a valid policy."""

from __future__ import annotations

import random

import pytest

from ace_lab.bounded import ConfigError
from ace_lab.llm import LLM
from ace_lab.mosaic.analyzer import AnalyzerOutput, analyze, controls_from_signals, decide
from ace_lab.mosaic.policy import (
    FIXED_POLICIES,
    ExplorationPolicy,
    budget_matched,
)
from ace_lab.trace import Trace
from tests.support.mosaic_policies import assert_valid, junk
from tests.support.replies import mosaic_reply
from tests.support.scripted import ScriptedClient

FIELDS = [row["field"] for row in ExplorationPolicy.describe()]


def test_construction_rejects_out_of_range_and_inconsistent_values():
    for bad in (
        {"seed_count": 4},
        {"max_depth": 5},
        {"evidence_budget": 17},
        {"beam_width": 2},
        {"stop_threshold": "bottomless"},
        {"cardinality": "many"},
        {"targets": ("a", 3)},
        {"min_depth": 3, "max_depth": 2},
        {"preservation_floor": 9},
        {"targets": tuple("abcde")},
    ):
        with pytest.raises(ConfigError):
            ExplorationPolicy(**bad)
    assert_valid(ExplorationPolicy())
    for policy in FIXED_POLICIES.values():
        assert_valid(policy)


def test_clamp_records_every_change():
    policy, changes = ExplorationPolicy.clamp(
        {
            "seed_count": 40,
            "max_depth": 1.0,
            "stop_threshold": "abyssal",
            "min_depth": 3,
            "targets": ["A", " a ", 7, "B"],
            "surprise": 1,
        }
    )
    why = {c.field: c.reason for c in changes}
    assert policy.seed_count == 12 and why["seed_count"] == "clamped"
    assert policy.max_depth == 2 and policy.min_depth == 2  # lowered to fit D_q, recorded
    assert why["min_depth"].startswith("lowered") and policy.stop_threshold == "medium"
    assert why["stop_threshold"] == "defaulted" and why["surprise"] == "unknown field"
    assert policy.targets == ("A", "B") and why["targets"] == "cleaned"
    assert why["evidence_budget"] == "missing"
    untouched, none = ExplorationPolicy.clamp(FIXED_POLICIES["wide"].to_dict())
    assert untouched == FIXED_POLICIES["wide"] and none == []


def test_signals_map_to_controls_and_clamps_are_recorded():
    signals = {
        "cardinality": "list",
        "targets": ["X", "Y"],
        "comparison": True,
        "mediated": True,
        "depth": 9,
        "anchoring": "vague",
        "breadth": "broad",
    }
    d = decide(signals)
    p = d.policy
    assert not d.fallback and p.per_target and p.targets == ("X", "Y") and p.connectors
    assert p.max_depth == 4 and p.min_depth == 2 and p.cardinality == "list"
    assert p.stop_threshold == "deep" and not p.anchored and p.evidence_budget == 16
    assert {a.field for a in d.adjustments} >= {"max_depth", "evidence_budget"}
    simple = decide({"depth": 1, "targets": ["X"]}).policy  # a one-hop fact lookup
    assert (simple.max_depth, simple.stop_threshold, simple.per_target) == (2, "shallow", False)
    assert decide({"depth": "three"}).fallback and decide([1, 2]).fallback
    assert decide({}).policy == ExplorationPolicy.clamp(controls_from_signals(AnalyzerOutput()))[0]


def test_a_thousand_random_analyzer_outputs_always_yield_a_valid_policy():
    rng = random.Random(16)
    keys = [*AnalyzerOutput.model_fields, *FIELDS, "junk"]
    fallbacks = 0
    for _ in range(1000):
        raw = {k: junk(rng) for k in rng.sample(keys, rng.randrange(len(keys)))}
        decision = decide(raw)
        assert_valid(decision.policy)
        fallbacks += decision.fallback
        policy, _ = ExplorationPolicy.clamp(raw)  # the controls directly, too
        assert_valid(policy)
    assert 0 < fallbacks < 1000  # both paths were exercised


def test_analyze_falls_back_on_malformed_output_and_notes_it(settings):
    trace = Trace()
    llm = LLM(settings, client=ScriptedClient(mosaic_reply('{"depth": ')))
    with trace.activate(), trace.step("policy") as step:
        decision = analyze(llm, "Who?", attempts=2)
    assert decision.fallback and decision.policy == ExplorationPolicy()
    assert decision.attempts == 2 and [r.outcome for r in step.repairs] == ["fallback"]
    good = analyze(LLM(settings, client=ScriptedClient(mosaic_reply())), "Who?")
    assert not good.fallback and good.policy.per_target


def test_budget_matched_sets_budget_and_depth_within_bounds():
    assert (budget_matched(10, 2).evidence_budget, budget_matched(10, 2).max_depth) == (10, 2)
    clamped = budget_matched(99, 9)
    assert (clamped.evidence_budget, clamped.max_depth) == (16, 4)
