"""ace_lab.mosaic.method: MOSAIC end to end on the toy graph (scripted analyzer and answer for
control flow; the smoke model for integration), every stage in the trace, stats recorded."""

from __future__ import annotations

import pytest

from ace_lab.data import load_dataset
from ace_lab.llm import LLM
from ace_lab.mosaic.policy import FIXED_POLICIES
from ace_lab.mosaic.report.steps import payload, payloads
from ace_lab.mosaic.steps import ExplorationChoice, ExplorationStop, TraversalDepth
from ace_lab.registry import make_method
from ace_lab.steps import Generation
from tests.support.replies import mosaic_reply
from tests.support.scripted import ScriptedClient

STAT_KEYS = {
    "paths_evaluated",
    "evidence_retained",
    "depth_reached",
    "stop_reason",
    "connectors_used",
    "policy",
}


def stats(answer) -> dict:
    """The ``stats`` record column of a MOSAIC answer."""
    return answer.details.columns()["stats"]


def kinds(answer) -> list[str]:
    return [s.kind for s in answer.trace.steps]


def test_mosaic_records_every_stage_and_its_stats(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    query = load_dataset("toy").questions[0].question
    answer = make_method("mosaic:signals", toy_graph, llm).answer(query)
    k = kinds(answer)
    assert k[:2] == ["policy", "seed"] and k[-3:] == ["stop", "select", "generate"]
    assert set(k[2:-3]) == {"traverse"}
    numbers = stats(answer)
    assert set(numbers) >= STAT_KEYS and numbers["policy"]["per_target"] is True
    assert numbers["policy"]["targets"] == ["Ilse Marrin", "Brinemouth"]
    assert answer.details.columns()["policy"]["label"] == answer.details.label
    assert answer.method == "mosaic:signals" and answer.retrieval_calls == 1 and answer.raw
    choice = payload(answer.trace, ExplorationChoice)
    assert choice is not None and choice.fallback is False and choice.source == "analyzer"
    traverse = payloads(answer.trace, TraversalDepth)
    assert [s.kind for s in answer.trace.steps if isinstance(s.payload, TraversalDepth)] == [
        "traverse"
    ] * len(traverse)
    assert numbers["depth_reached"] <= numbers["policy"]["max_depth"]
    for depth in traverse:
        for path in depth.kept:
            assert {"relevance", "target", "hub", "repetition", "question_label"} <= set(
                path.components
            )
    assert numbers["paths_evaluated"] == sum(d.candidates for d in traverse)
    stop = payload(answer.trace, ExplorationStop)
    assert stop.reason == numbers["stop_reason"] and stop.rounds == numbers["depth_reached"]
    assert payload(answer.trace, Generation).answer == answer.text
    # The context is the select step's working set: nothing else slips in.
    assert {e.id for e in answer.context} == {e.id for e in answer.trace.working_set()}
    assert any(e.kind == "passage" for e in answer.context)
    assert answer.trace.summary()["llm_calls"] == 2


def test_malformed_analyzer_output_gives_the_default_policy_marked(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(mosaic_reply("not json at all")))
    answer = make_method("mosaic:signals", toy_graph, llm).answer(
        "Where is the tidal lantern kept?"
    )
    step = answer.trace.find("policy")
    assert step.payload.fallback is True and any("default policy" in n for n in step.notes)
    assert stats(answer)["analyzer_fallback"] is True
    assert stats(answer)["policy"] == FIXED_POLICIES["medium"].to_dict()


@pytest.mark.parametrize(
    "name", ["mosaic-fixed:narrow", "mosaic-fixed:wide", "mosaic-budget-matched:9x2"]
)
def test_fixed_policies_make_no_analyzer_call(settings, toy_graph, name):
    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    answer = make_method(name, toy_graph, llm).answer("Where is the tidal lantern kept?")
    assert answer.trace.summary()["llm_calls"] == 1
    numbers = stats(answer)
    assert numbers["evidence_retained"] <= numbers["policy"]["evidence_budget"]
    assert payload(answer.trace, ExplorationChoice).source == "fixed"
    if name.endswith("9x2"):
        assert (numbers["policy"]["evidence_budget"], numbers["policy"]["max_depth"]) == (9, 2)


def test_mosaic_runs_on_the_openie_graph(settings, openie_graph):
    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    answer = make_method("mosaic@openie", openie_graph, llm).answer(
        "Where was the co-founder of the Varrowmere Lantern Works born?"
    )
    assert stats(answer)["stop_reason"] in ("converged", "depth_cap", "exhausted")
    assert answer.context.evidence


@pytest.mark.integration
def test_mosaic_with_the_smoke_model(settings, toy_graph):
    from ace_lab.llm import server

    llm = LLM(settings)
    query = load_dataset("toy").questions[1].question
    try:
        answer = make_method("mosaic", toy_graph, llm).answer(query)
        steps = {s.kind for s in answer.trace.steps}
        assert {"policy", "seed", "stop", "select", "generate"} <= steps
        assert answer.trace.find("policy").llm_calls and answer.raw
        assert answer.context.evidence and stats(answer)["policy"]
    finally:
        server.stop(settings)
