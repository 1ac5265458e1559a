"""ace_lab.ace.compose and ace_lab.registry.compose: ``source>ace-…`` names run ACE's context
policy over another method's evidence (scripted models on the toy graphs): names parse and
round-trip, every source composes, the trace shows the source's steps then ACE's, provenance
names the part that found each item, the context keeps ACE's budget, the record has ACE's
columns, and the stepper steps through a composed trace."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ace_lab import widgets
from ace_lab.ace.compose import SOURCE_BACKBONES
from ace_lab.ace.source import PART
from ace_lab.data import Question
from ace_lab.eval.studies.record import record
from ace_lab.llm import LLM
from ace_lab.registry import ace_config, canonical_name, make_method, parse, spec
from ace_lab.steps import Retrieval
from ace_lab.steps.ace import AceDetails, BranchRetrieval, PolicyDecision
from ace_lab.steps.arc import SchemaView
from ace_lab.steps.mosaic import ExplorationChoice
from tests.support.replies import ARC_QUESTION, ace_reply, arc_prompt, arc_reply, mosaic_reply
from tests.support.scripted import ScriptedClient

QUESTION = "tidal lantern museum"


def mosaic_and_ace(kwargs: dict) -> str:
    """MOSAIC's script for its analyzer, ACE's for the router, planner and answer."""
    if "MOSAIC query analyzer" in kwargs["messages"][0]["content"]:
        return mosaic_reply()(kwargs)
    return ace_reply(kwargs)


def arc_and_ace(kwargs: dict) -> str:
    return arc_reply()(kwargs) if arc_prompt(kwargs) != "answer" else ace_reply(kwargs)


@pytest.mark.parametrize(
    "name, head, source, policy",
    [
        ("mosaic>ace-full", "mosaic", "", "ace-full"),
        ("arcrag:r1p1@openie>ace-adaptive", "arcrag", "openie", "ace-adaptive"),
        ("hipporag@hierarchical>ace-fixed:gap+depth", "hipporag", "hierarchical", ""),
    ],
)
def test_composition_names_parse_and_round_trip(name, head, source, policy):
    parts = parse(name)
    assert parts.head == head and parts.family == source and str(parts) == name
    assert canonical_name(name) == name and spec(name).report == "ace_lab.ace.report"
    if policy:
        assert parts.policy == policy


def test_old_policy_spellings_are_unchanged():
    assert canonical_name("ace>gap+depth") == "ace-fixed:gap+depth"
    assert canonical_name("mosaic>narrow") == "mosaic-fixed:narrow"
    assert parse("ace@graphrag>gap+depth").policy == "gap+depth"


def test_a_composition_reads_the_source_graph_and_runs_the_ace_configuration():
    assert spec("hipporag>ace-full").family == "openie"
    assert spec("mosaic@openie>ace-full").family == "openie"
    arc = spec("arcrag>ace-adaptive")
    assert arc.family == "typed" and arc.needs_store
    assert arc.configs[0] == ace_config("ace-adaptive")
    # either part's configuration is part of the composed method's (its config hash)
    assert spec("mosaic>ace-full").configs != spec("mosaic-fixed:wide>ace-full").configs


@pytest.mark.parametrize(
    "bad, message",
    [
        ("hirag-local>ace-full", "cannot be the source"),
        ("mosaic>ace-nope", "unknown ACE method"),
        ("mosaic>ace-fixed", "name the policy"),
        ("mosaic>ace-full@graphrag", "grammar"),
    ],
)
def test_bad_compositions_say_why_in_one_line(bad, message):
    with pytest.raises(KeyError, match=message):
        spec(bad)


def _answer(settings: Any, graph: Any, name: str, reply: Callable[[dict], str], q: str) -> Any:
    return make_method(name, graph, LLM(settings, client=ScriptedClient(reply))).answer(q)


@pytest.mark.parametrize("source", sorted(SOURCE_BACKBONES))
def test_every_retriever_source_composes(settings, toy_graph, source):
    name = f"{source}>ace-full"
    head = "hipporag@hierarchical" if source == "hipporag" else source
    answer = _answer(settings, toy_graph, name.replace(source, head, 1), ace_reply, QUESTION)
    assert answer.text == "Brinemouth" and answer.method == name.replace(source, head, 1)
    assert isinstance(answer.details, AceDetails) and answer.details.backbone == head
    payloads = [s.payload for s in answer.trace.steps]
    assert isinstance(payloads[0], Retrieval)  # C_base from the source
    branches = [p for p in payloads if isinstance(p, BranchRetrieval)]
    assert {b.branch for b in branches} == {"depth", "breadth"}
    _provenance_and_budget(answer, head)


def _provenance_and_budget(answer: Any, source: str) -> None:
    budget = ace_config("ace-full").adapt.budget_tokens
    assert answer.context.evidence and answer.context.tokens <= budget
    parts = {e.meta[PART] for e in answer.context.evidence}
    assert parts <= {source, "ace:depth", "ace:breadth"}
    for item in answer.context.evidence:
        assert item.meta["provenance"], item.id  # the merge's r<round>:<branch> list


def test_hirag_as_a_source_is_ace_on_its_own_backbone(settings, toy_graph):
    composed = _answer(settings, toy_graph, "hirag>ace-full", ace_reply, QUESTION)
    alone = _answer(settings, toy_graph, "ace-full", ace_reply, QUESTION)
    assert composed.text == alone.text
    assert [e.id for e in composed.context] == [e.id for e in alone.context]
    assert [s.name for s in composed.trace.steps] == [s.name for s in alone.trace.steps]


def test_mosaic_composes_with_its_steps_before_aces(settings, toy_graph):
    answer = _answer(settings, toy_graph, "mosaic>ace-full", mosaic_and_ace, QUESTION)
    assert answer.text == "Brinemouth" and answer.details.backbone == "mosaic"
    types = [type(s.payload) for s in answer.trace.steps]
    assert types[0] is Retrieval and types.index(ExplorationChoice) < types.index(PolicyDecision)
    base = answer.trace.steps[0]
    assert base.payload.mode == "mosaic" and base.added  # C_base: MOSAIC's selected context
    modes = {
        p.mode for p in (s.payload for s in answer.trace.steps) if isinstance(p, BranchRetrieval)
    }
    assert modes == {"mosaic:deep", "mosaic:wide"}
    _provenance_and_budget(answer, "mosaic")
    # the analyzer ran once (C_base); the branches' fixed policies need no model call
    analyzer = [c for s in answer.trace.steps for c in s.llm_calls if "mosaic" in c.tag]
    assert len(analyzer) == 1


def test_arcrag_composes_over_its_witness(settings, openie_graph):
    answer = _answer(
        settings, openie_graph, "arcrag:r1p1@openie>ace-full", arc_and_ace, ARC_QUESTION
    )
    assert answer.text == "Brinemouth" and answer.details.backbone == "arcrag:r1p1@openie"
    types = [type(s.payload) for s in answer.trace.steps]
    assert SchemaView in types and types.index(SchemaView) < types.index(PolicyDecision)
    modes = {
        p.mode for p in (s.payload for s in answer.trace.steps) if isinstance(p, BranchRetrieval)
    }
    assert modes == {"arc:k5", "arc:k15"}
    assert answer.context.tokens <= ace_config("ace-full").adapt.budget_tokens


def test_the_record_has_aces_columns_and_the_stepper_steps_through(settings, toy_graph):
    answer = _answer(settings, toy_graph, "mosaic>ace-adaptive", mosaic_and_ace, QUESTION)
    row = record(Question("q1", QUESTION, "Brinemouth", (), (), None, "toy"), answer)
    assert row["em"] == 1.0 and row["topology"] == "POINT"
    assert row["policy"]["label"] == "gap+depth+prune" and row["plan"]["queries"]
    assert row["input_tokens"] > 0
    stages = widgets.stages(answer)
    assert len(stages) == len(answer.trace.steps) and all(s.payload for s in stages)
    views = widgets.step_views(answer.method)
    for stage in stages:
        assert stage.name in widgets.step_html(stage.step, views)
