"""ace_lab.mosaic.controls: the paper's analyzer, whose reply is the policy — validated,
clamped, defaulted, every change recorded, no project floors; its names in the registry."""

from __future__ import annotations

import json
import random

from ace_lab.eval.studies.identity import config_hash
from ace_lab.llm import LLM
from ace_lab.mosaic.analyzer import AnalyzerOutput, controls_from_signals
from ace_lab.mosaic.controls import (
    CONTROLS_PROMPT,
    ControlsAnalyzer,
    ControlsReply,
    analyze_controls,
    decide_controls,
)
from ace_lab.mosaic.method import Mosaic
from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.report.steps import payload
from ace_lab.mosaic.steps import ExplorationChoice
from ace_lab.prompts import load_prompt
from ace_lab.registry import canonical_name, make_method, parse, spec
from tests.support.mosaic_policies import assert_valid, junk
from tests.support.replies import QA_REPLY
from tests.support.scripted import ScriptedClient

#: A reply that is a valid policy as written (the smallest seed count and budget allowed).
REPLY = {
    "seed_count": 5,
    "per_target": True,
    "targets": ["Ilse Marrin", "Brinemouth"],
    "max_depth": 3,
    "min_depth": 2,
    "beam_width": 6,
    "connectors": True,
    "stop_threshold": "deep",
    "evidence_budget": 8,
    "preservation_floor": 4,
    "cardinality": "single",
    "anchored": True,
    "source_window": 0,
}


def controls_reply(reply: object = None):
    """Plays the model: ``reply`` (an object or JSON text) for the analyzer, an answer else."""

    def play(kwargs: dict) -> str:
        if "MOSAIC query analyzer" in kwargs["messages"][0]["content"]:
            given = REPLY if reply is None else reply
            return given if isinstance(given, str) else json.dumps(given)
        return QA_REPLY

    return play


def test_a_valid_reply_is_the_policy_unchanged_and_has_no_floors():
    decision = decide_controls(REPLY)
    assert decision.adjustments == () and not decision.fallback
    assert decision.policy.to_dict() == {**REPLY, "patience": 1}
    assert decision.signals == REPLY  # what the model wrote, as it wrote it
    # the six-signal mapping never goes below 6 seeds and a budget of 10 (its floors)
    mapped = controls_from_signals(AnalyzerOutput(cardinality="single", depth=1))
    assert mapped["seed_count"] >= 6 and mapped["evidence_budget"] >= 10
    assert (decision.policy.seed_count, decision.policy.evidence_budget) == (5, 8)


def test_every_repair_is_recorded():
    reply = {
        "seed_count": 40,  # clamped to 12
        "max_depth": 2,
        "min_depth": 3,  # lowered to the cap
        "stop_threshold": "very deep",  # unsupported: the default
        "beam_width": "wide",  # wrong type: the default (that control alone)
        "bogus": 1,  # not a control
    }
    decision = decide_controls(reply)
    why = {a.field: a.reason for a in decision.adjustments}
    assert why["seed_count"] == "clamped" and decision.policy.seed_count == 12
    assert why["min_depth"].startswith("lowered") and decision.policy.min_depth == 2
    assert why["stop_threshold"] == "defaulted" and decision.policy.stop_threshold == "medium"
    assert why["beam_width"] == "defaulted" and decision.policy.beam_width == 8
    assert why["bogus"] == "unknown field"
    assert why["evidence_budget"] == "missing" and decision.policy.evidence_budget == 12
    assert "patience" not in why  # fixed by the paper, not asked of the model


def test_unusable_replies_give_the_default_policy_marked():
    for bad in ([1, 2], "no", None):
        decision = decide_controls(bad)
        assert decision.fallback and decision.policy == ExplorationPolicy()


def test_random_replies_never_crash_and_always_give_a_valid_policy():
    rng = random.Random(37)
    keys = [*ControlsReply.model_fields, "patience", "junk"]
    fallbacks = 0
    for _ in range(500):
        raw = {k: junk(rng) for k in rng.sample(keys, rng.randrange(len(keys)))}
        decision = decide_controls(raw if rng.random() < 0.8 else junk(rng))  # a non-object too
        assert_valid(decision.policy)
        fallbacks += decision.fallback
    assert 0 < fallbacks < 500


def test_the_call_sends_the_controls_schema_and_records_the_reply(settings, toy_graph):
    client = ScriptedClient(controls_reply())
    llm = LLM(settings, client=client)
    answer = make_method("mosaic", toy_graph, llm).answer("Who founded the observatory?")
    first = client.requests[0]
    assert first["messages"][0]["content"] == load_prompt(CONTROLS_PROMPT).system
    schema = json.dumps(first["response_format"])
    assert all(f'"{key}"' in schema for key in REPLY)
    choice = payload(answer.trace, ExplorationChoice)
    assert choice.source == "analyzer" and not choice.fallback and choice.adjustments == ()
    assert choice.policy["seed_count"] == 5 and choice.signals["targets"] == tuple(REPLY["targets"])
    assert answer.details.columns()["stats"]["policy"]["evidence_budget"] == 8


def test_analyze_controls_falls_back_after_its_attempts(settings):
    llm = LLM(settings, client=ScriptedClient(controls_reply('{"seed_count": ')))
    decision = analyze_controls(llm, "Who?", attempts=2, config=ControlsAnalyzer(max_tokens=64))
    assert decision.fallback and decision.attempts == 2 and decision.policy == ExplorationPolicy()


def test_names_aliases_and_hashes():
    for name in ("mosaic:controls", "mosaic:signals", "mosaic:signals@openie"):
        assert str(parse(name)) == name
    assert canonical_name("mosaic:controls") == "mosaic"
    assert canonical_name("mosaic:controls@openie") == "mosaic@openie"
    assert config_hash("mosaic:controls") == config_hash("mosaic")
    assert config_hash("mosaic:signals") != config_hash("mosaic")
    assert spec("mosaic").config(ControlsAnalyzer) == ControlsAnalyzer()
    assert not any(isinstance(c, ControlsAnalyzer) for c in spec("mosaic:signals").configs)


def test_the_committed_names_keep_their_configuration_hash():
    """``mosaic`` is the paper's analyzer under its own name and ``mosaic:signals`` the mapping:
    the hashes the renamed records carry (``ace-lab rename``)."""
    assert config_hash("mosaic") == "43cdd97724f93308"
    assert config_hash("mosaic:signals") == "93325904e9cbed48"


def test_compositions_keep_their_analyzer(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(controls_reply()))
    wide = make_method("mosaic-fixed:wide>ace-full", toy_graph, llm).backbone.source.method
    assert wide.policy.beam_width == 24 and wide.analyzer is None
    composed = make_method("mosaic>ace-full", toy_graph, llm)
    method = composed.backbone.source.method  # the MOSAIC inside the composition
    assert isinstance(method, Mosaic) and method.analyzer == ControlsAnalyzer()
    assert method.policy is None  # the analyzer's per-query policy
    signals = make_method("mosaic:signals>ace-full", toy_graph, llm).backbone.source.method
    assert signals.analyzer is None and signals.policy is None
