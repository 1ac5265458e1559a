"""ace_lab.ace.compose and ace_lab.registry.compose: ``source>ace-…`` names run ACE's context
policy over another method's evidence (scripted models on the toy graphs): names parse and
round-trip, every source composes, the trace shows the source's steps then ACE's, a source's
own stages of each branch are branch steps (MOSAIC's explorations, ArcRAG's retrievals) that
the stepper lists and the reports do not count as the method's decisions, ArcRAG's own answer
stays in the composed trace, provenance names the part that found each item, the context keeps
ACE's budget, the record has ACE's columns, and the stepper steps through a composed trace."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ace_lab import widgets
from ace_lab.ace.compose import SOURCE_BACKBONES
from ace_lab.ace.report.liveness import ace_decisions
from ace_lab.ace.source import PART
from ace_lab.ace.specs import ace_config
from ace_lab.ace.steps import AceDetails, BranchRetrieval, PolicyDecision
from ace_lab.arc.report.tables import payloads as arc_payloads
from ace_lab.arc.steps import ArcGeneration, ArcRetrieval, SchemaView
from ace_lab.data import Question
from ace_lab.eval.studies.record import record, step_payloads
from ace_lab.llm import LLM
from ace_lab.mosaic.policy import FIXED_POLICIES
from ace_lab.mosaic.report.policies import policy_side_by_side
from ace_lab.mosaic.report.steps import payloads
from ace_lab.mosaic.source import DEPTH_POLICY
from ace_lab.mosaic.steps import (
    EvidenceSelection,
    ExplorationChoice,
    ExplorationStop,
    SeedSelection,
    TraversalDepth,
)
from ace_lab.registry import canonical_name, make_method, parse, spec
from ace_lab.steps import Generation, Retrieval
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


#: The stages of one MOSAIC exploration, by the payload type each records.
MOSAIC_STAGES = {
    "policy": ExplorationChoice,
    "seed": SeedSelection,
    "stop": ExplorationStop,
    "select": EvidenceSelection,
}


def _branch_steps(answer: Any, branch: str) -> list[Any]:
    return [s for s in answer.trace.steps if s.name.startswith(f"{branch}/")]


def test_mosaic_s_branch_explorations_are_branch_steps_with_mosaic_payloads(settings, toy_graph):
    answer = _answer(settings, toy_graph, "mosaic>ace-full", mosaic_and_ace, QUESTION)
    names = [s.name for s in answer.trace.steps]
    labels = {"depth": DEPTH_POLICY.label, "breadth": FIXED_POLICIES["wide"].label}
    for branch, label in labels.items():
        steps = _branch_steps(answer, branch)
        stages = [s.name.split("/", 1)[1] for s in steps]
        assert stages[:2] == ["policy", "seed"] and stages[-2:] == ["stop", "select"]
        assert stages[2:-2] and all(st.startswith("traverse:") for st in stages[2:-2])
        for step in steps:
            stage = step.name.split("/", 1)[1]
            kind = MOSAIC_STAGES.get(stage, TraversalDepth)
            assert isinstance(step.payload, kind), step.name
            assert step.kind == stage.split(":")[0]
        choice = steps[0].payload
        assert (choice.source, choice.label) == ("fixed", label)
        # the exploration's selected context is what ACE's branch retrieval recorded
        retrieved = answer.trace.find(f"retrieve:{branch}").payload
        assert tuple(e.id for e in steps[-1].added) == retrieved.evidence_ids
        # after both branch retrievals (the join), before the merge, one branch after the other
        first, last = names.index(steps[0].name), names.index(steps[-1].name)
        assert names.index(f"retrieve:{branch}") < first and last < names.index("merge")
        assert names[first : last + 1] == [s.name for s in steps]
    assert names.index("depth/select") < names.index("breadth/policy")
    # the stepper lists them, each with its payload's line
    stages = widgets.stages(answer)
    shown = {st.name: st.summary for st in stages}
    assert "depth/traverse:1" in shown and shown["breadth/policy"].startswith("policy ")
    groups = {st.group for st in stages if st.name.startswith("depth/")}
    assert groups == {"depth branch"} and not stages[0].group
    # ... and shows MOSAIC's steps with MOSAIC's views (the source's report joins ACE's)
    views = widgets.step_views(answer.method)
    traverse = answer.trace.find("depth/traverse:1")
    assert type(traverse.payload) in views
    assert views[type(traverse.payload)](traverse) in widgets.step_html(traverse, views)
    # MOSAIC decided once for the question (its C_base exploration, by its analyzer): the
    # branch steps' fixed policies are not its decisions
    every = [s.payload for s in answer.trace.steps if isinstance(s.payload, ExplorationChoice)]
    assert len(every) == 3
    own = payloads(answer.trace, ExplorationChoice)
    assert len(own) == 1 and own[0].source == "analyzer" and own[0] is every[0]
    table = policy_side_by_side({"q": answer.trace})
    assert table.loc[("validation", "label"), "q"] == own[0].label
    assert len(payloads(answer.trace, ExplorationStop)) == 1
    # the branch steps are in the record too, with their payloads
    row = record(Question("q1", QUESTION, "Brinemouth", (), (), None, "toy"), answer)
    assert [s["name"] for s in row["steps"]] == names
    assert sum(isinstance(p, ExplorationChoice) for p in step_payloads(row)) == 3


def test_aces_liveness_counts_the_branches_it_issued_not_the_sources_branch_steps(
    settings, toy_graph
):
    answer = _answer(settings, toy_graph, "mosaic>ace-adaptive", mosaic_and_ace, QUESTION)
    assert _branch_steps(answer, "depth") and not _branch_steps(answer, "breadth")
    row = record(Question("q1", QUESTION, "Brinemouth", (), (), None, "toy"), answer)
    decided = ace_decisions(row)
    assert decided["route"] == "POINT" and decided["branches issued"] == ("depth",)


def _arc_answer_first(answers: list[str]) -> Callable[[dict], str]:
    """ArcRAG's script, whose (first) answer call says Kesterholm; ACE's script after it."""

    def reply(kwargs: dict) -> str:
        if arc_prompt(kwargs) != "answer":
            return arc_reply()(kwargs)
        answers.append(kwargs["messages"][-1]["content"])
        return arc_reply()(kwargs) if len(answers) == 1 else ace_reply(kwargs)

    return reply


def test_arcrag_s_own_answer_stays_in_the_composed_trace(settings, openie_graph):
    name = "arcrag:r1p1@openie"
    alone = _answer(settings, openie_graph, name, arc_reply(), ARC_QUESTION)
    asked: list[str] = []
    composed = _answer(
        settings, openie_graph, f"{name}>ace-full", _arc_answer_first(asked), ARC_QUESTION
    )
    assert len(asked) == 2  # ArcRAG's answer of its one pass, then ACE's
    assert composed.text == "Brinemouth" and alone.text == "Kesterholm"
    steps = composed.trace.steps
    own = [s for s in steps if isinstance(s.payload, ArcGeneration)]
    assert [s.name for s in own] == ["generate:p1"]
    arc = own[0].payload
    # the answer ArcRAG gives alone, from the context C_base starts from, before ACE's answer
    assert (arc.answer, arc.raw) == (alone.text, alone.raw)
    assert arc.context_ids == tuple(e.id for e in alone.context.evidence)
    assert [s.name for s in steps].index("generate:p1") < [s.name for s in steps].index("generate")
    final = composed.trace.find("generate").payload
    assert type(final) is Generation and final.answer == composed.text
    row = record(Question("q1", ARC_QUESTION, "Kesterholm", (), (), None, "toy"), composed)
    kept = [p for p in step_payloads(row) if isinstance(p, ArcGeneration)]
    assert [p.answer for p in kept] == ["Kesterholm"]


def test_arcrag_s_branch_retrievals_are_branch_steps(settings, openie_graph):
    answer = _answer(
        settings, openie_graph, "arcrag:r1p1@openie>ace-full", arc_and_ace, ARC_QUESTION
    )
    for branch, mode in (("depth", "arc:k5"), ("breadth", "arc:k15")):
        (step,) = _branch_steps(answer, branch)
        assert step.name == f"{branch}/retrieve" and step.kind == "retrieve"
        assert isinstance(step.payload, ArcRetrieval) and step.payload.pass_index == 0
        assert step.payload.phrases == (step.inputs["query"],) and step.inputs["mode"] == mode
        retrieved = answer.trace.find(f"retrieve:{branch}").payload
        assert tuple(e.id for e in step.added) == retrieved.evidence_ids
    # ArcRAG's own retrieval table reads its loop's retrievals only (pass 1)
    assert [r.pass_index for r in arc_payloads(answer.trace, ArcRetrieval)] == [1]
