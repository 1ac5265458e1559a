"""ace_lab.mosaic.counterfactual: one control flipped and validated, and the replay of a policy
through MOSAIC's pipeline — deterministic, the method's own context, no model call."""

from __future__ import annotations

import dataclasses

import pytest

from ace_lab.data import load_dataset
from ace_lab.llm import LLM
from ace_lab.mosaic.counterfactual import FLIPS, Replayer
from ace_lab.mosaic.policy import FIXED_POLICIES, ExplorationPolicy
from ace_lab.registry import make_method
from tests.support.replies import QA_REPLY
from tests.support.scripted import ScriptedClient

MEDIUM = FIXED_POLICIES["medium"]
BY_NAME = {f.name: f for f in FLIPS}


def test_each_flip_changes_its_control_only_and_not_past_a_bound():
    for flip in FLIPS:
        changed = flip.apply(MEDIUM)
        assert changed is not None, flip.name
        differ = {k for k, v in changed.to_dict().items() if MEDIUM.to_dict()[k] != v}
        assert differ == {flip.control}, flip.name
    deepest = dataclasses.replace(MEDIUM, max_depth=4, stop_threshold="deep")
    assert BY_NAME["depth cap +1"].apply(deepest) is None
    assert BY_NAME["stopping deeper"].apply(deepest) is None
    assert BY_NAME["seeds +3"].apply(dataclasses.replace(MEDIUM, seed_count=11)).seed_count == 12


def test_a_flip_repairs_what_its_control_bounds():
    policy = ExplorationPolicy(max_depth=3, min_depth=3)
    shallower = BY_NAME["depth cap -1"].apply(policy)
    assert (shallower.max_depth, shallower.min_depth) == (2, 2)
    lean = BY_NAME["evidence budget -4"].apply(ExplorationPolicy(preservation_floor=8))
    assert (lean.evidence_budget, lean.preservation_floor) == (8, 8)


def test_the_replay_is_the_methods_context_and_calls_no_model(settings, toy_graph):
    query = load_dataset("toy").questions[0].question
    client = ScriptedClient(lambda kwargs: QA_REPLY)
    answer = make_method("mosaic-fixed:medium", toy_graph, LLM(settings, client=client)).answer(
        query
    )
    replayer = Replayer(toy_graph)  # no LLM at all
    replay = replayer.replay(query, MEDIUM)
    assert replay.evidence_ids == tuple(e.id for e in answer.context)
    assert replayer.replay(query, MEDIUM).evidence_ids == replay.evidence_ids
    assert replay.flip == "" and replay.label == MEDIUM.label and replay.passage_ids
    wider = replayer.replay(query, MEDIUM, BY_NAME["evidence budget +4"])
    assert wider.flip == "evidence budget +4" and wider.control == "evidence_budget"
    assert len(client.requests) == 1  # the method's own answer; the replays asked nothing


def test_answers_need_an_llm_and_use_the_shared_generator(settings, toy_graph):
    query = load_dataset("toy").questions[0].question
    replay = Replayer(toy_graph).replay(query, MEDIUM)
    with pytest.raises(ValueError, match="need an LLM"):
        Replayer(toy_graph).answer(query, replay, "qa")
    llm = LLM(settings, client=ScriptedClient(lambda kwargs: QA_REPLY))
    assert Replayer(toy_graph, llm).answer(query, replay, "qa") == "y"
