"""ace_lab.arc.method: ArcRAG end to end on the typed and the OpenIE toy graphs (scripted agents),
the pass cap, Direct-Cypher and the ablations, and budgets that replay from the cache."""

from __future__ import annotations

import contextlib
import json
import signal
from dataclasses import replace

import pytest

from ace_lab.arc.budget import Budget
from ace_lab.arc.steps import CypherExecution
from ace_lab.llm import LLM
from ace_lab.registry import make_method
from ace_lab.steps import from_record, to_record
from tests.support.replies import ARC_QUESTION, arc_prompt, arc_reply
from tests.support.scripted import ScriptedClient

STAGES = [
    "schema",
    "plan:rewrite",
    "retrieve:p1",
    "explore:p1",
    "plan:p1",
    "cypher:p1.s0",
    "cypher:p1.s1",
    "witness:p1",
    "generate:p1",
    "judge:p1",
    "stop",
]
STATS = {
    "cypher_queries",
    "valid_rate",
    "acceptable_rate",
    "first_acceptable_rate",
    "passes_used",
    "witness_nodes",
    "witness_edges",
    "stop_reason",
    "cache_hit_share",
    "interface_size",
}


def ask(settings, graph, name, **overrides):
    client = ScriptedClient(arc_reply(**overrides))
    answer = make_method(name, graph, LLM(settings, client=client)).answer(ARC_QUESTION)
    return answer, client


@pytest.mark.parametrize("family", ["typed", "openie"])
def test_arcrag_records_every_stage_on_both_families(settings, typed_graph, openie_graph, family):
    graph = typed_graph if family == "typed" else openie_graph
    name = "arcrag" if family == "typed" else "arcrag@openie"
    answer, _ = ask(settings, graph, name)
    assert answer.text == "Kesterholm"
    assert [s.name for s in answer.trace.steps] == STAGES
    steps = {s.name: s for s in answer.trace.steps}
    assert steps["schema"].payload.schema["chunk_backed"]
    assert steps["retrieve:p1"].payload.gaps == ("Zorblax Tower",)
    assert steps["explore:p1"].payload.size > 0 and steps["explore:p1"].payload.queries
    execution = steps["cypher:p1.s0"].payload
    assert isinstance(execution, CypherExecution) and execution.accepted
    assert (execution.pass_index, execution.subplan_index) == (1, 0)
    assert steps["cypher:p1.s1"].payload.subplan_index == 1 and steps["cypher:p1.s0"].added
    assert execution.attempts[0].query.n_rows > 0 and execution.new_elements > 0
    passages = set(graph.indexes.get("passages").ids)
    assert answer.context.evidence and {e.id for e in answer.context} <= passages
    assert {e.kind for e in answer.context} == {"passage"}
    stats = answer.details.stats
    assert answer.details.columns() == {"stats": stats} and answer.method == name
    assert set(stats) >= STATS and stats["stop_reason"] == "sufficient"
    assert stats["passes_used"] == 1 and stats["witness_edges"] > 0
    assert answer.details.witness["queries"][0]["query_id"] == "p1.s0"
    json.dumps(stats), answer.trace.to_json()  # serialisable for the records
    # every payload (and the details) reloads from its record as the same type and record
    for payload in [s.payload for s in answer.trace.steps] + [answer.details]:
        stored = json.loads(json.dumps(to_record(payload)))
        loaded = from_record(stored)
        assert type(loaded) is type(payload) and json.loads(json.dumps(to_record(loaded))) == stored


def test_follow_up_loop_stops_at_the_pass_cap(settings, typed_graph):
    follow = {"sufficient": False, "missing": "x", "follow_up": "Where was Ilse Marrin born?"}
    answer, client = ask(settings, typed_graph, "arcrag:r1p3", sufficient=follow)
    calls = [arc_prompt(k) for k in client.requests]
    assert answer.details.stats["passes_used"] == 3
    assert answer.details.stats["stop_reason"] == "pass cap"
    names = [s.name for s in answer.trace.steps]
    assert [n for n in names if n.startswith("judge")] == ["judge:p1", "judge:p2"]  # not at cap
    assert calls.count("rewrite") == 1  # once, before the loop
    queries = [p.query for p in answer.details.passes]
    assert queries[1:] == ["Where was Ilse Marrin born?"] * 2
    assert names.count("generate:p3") == 1


def test_no_follow_up_ends_the_loop(settings, typed_graph):
    answer, _ = ask(
        settings, typed_graph, "arcrag-generator", sufficient={"sufficient": False, "follow_up": ""}
    )
    assert answer.details.stats["passes_used"] == 1


def test_direct_cypher_is_one_attempt_one_pass_from_the_schema(settings, openie_graph):
    answer, client = ask(settings, openie_graph, "direct-cypher@openie")
    assert [arc_prompt(k) for k in client.requests] == ["direct", "answer"]
    assert [s.name for s in answer.trace.steps] == [
        "schema",
        "cypher:p1.s0",
        "witness:p1",
        "generate:p1",
        "stop",
    ]
    assert answer.details.stats["cypher_queries"] == 1


def test_ablations_skip_their_stages(settings, typed_graph):
    gen, client = ask(settings, typed_graph, "arcrag-generator:r1p1")
    names = {s.name for s in gen.trace.steps}
    assert "retrieve:p1" in names and not {"explore:p1", "plan:p1"} & names
    assert {"explore", "plan", "bind"}.isdisjoint(arc_prompt(k) for k in client.requests)
    eg, _ = ask(settings, typed_graph, "arcrag-explorer:r1p1")
    names = {s.name for s in eg.trace.steps}
    assert "explore:p1" in names and "plan:p1" not in names


def test_a_larger_budget_replays_the_smaller_ones_calls(settings, typed_graph):
    """Budgets never reach a prompt: r3p1 repeats every call r1p1 made, from the cache."""
    bad = {"cypher": "MATCH (a) WHERE a.id = 'nobody' RETURN a"}
    small, c1 = ask(settings, typed_graph, "arcrag:r1p1", compile=bad)
    large, c2 = ask(settings, typed_graph, "arcrag:r3p1", compile=bad)
    first = [json.dumps(k["messages"]) for k in c1.requests]
    assert c2.requests and all(json.dumps(k["messages"]) not in first for k in c2.requests)
    assert large.details.stats["cache_hit_share"] > 0.5  # only the refinements were new
    assert large.details.stats["cypher_queries"] > small.details.stats["cypher_queries"]


#: The smallest real run: one explorer turn, the neighbourhood scan only, one attempt, one pass.
SMOKE_BUDGET = Budget(retries=1, passes=1, explorers=1, explorer_turns=1, max_subplans=1)


@contextlib.contextmanager
def _stopped_on_sigterm():
    """Turn SIGTERM (``timeout``, CI cancellation) into KeyboardInterrupt so ``finally`` runs
    and the server this test started is stopped instead of outliving it."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.integration
def test_arcrag_and_direct_cypher_with_the_smoke_model(
    settings, typed_graph, openie_graph, monkeypatch
):
    """ArcRAG (smallest budget) on the typed graph, Direct-Cypher on the OpenIE graph: at most
    9 LLM calls of at most 800 tokens each. The 135M model often writes a JSON string until
    ``max_tokens`` runs out, so each structured call gets one attempt here (the retry path has
    its unit tests), not three. One server thread and slot (the model needs no more; extra
    threads on a busy machine make llama.cpp crawl); a stuck call fails within ``timeout_s``
    instead of being retried for up to 4 × 600 s."""
    from ace_lab.llm import server

    one_attempt = LLM.json
    monkeypatch.setattr(
        LLM, "json", lambda self, *a, **kw: one_attempt(self, *a, **kw | {"attempts": 1})
    )
    llm_settings = replace(settings.llm, threads=1, parallel=1, timeout_s=120.0, max_retries=1)
    settings = replace(settings, llm=llm_settings)
    llm = LLM(settings)
    with _stopped_on_sigterm():
        try:
            for name, graph in (("arcrag", typed_graph), ("direct-cypher@openie", openie_graph)):
                method = make_method(name, graph, llm)
                if name == "arcrag":
                    method.budget = SMOKE_BUDGET
                answer = method.answer(ARC_QUESTION)
                steps = {s.name: s for s in answer.trace.steps}
                assert {"schema", "cypher:p1.s0", "generate:p1", "stop"} <= set(steps)
                assert answer.raw and answer.details.stats["passes_used"] == 1
                stats = answer.details.stats
                # one subplan, one attempt: model-written, or the scan's template
                assert stats["cypher_queries"] + stats["templated_queries"] == 1
                assert all(c.completion_tokens <= 800 for c in answer.trace.llm_calls)
        finally:
            server.stop(settings)


def test_the_judge_token_samples_the_sufficiency_judgement_at_the_paper_s_temperature(
    settings, typed_graph
):
    follow = {"sufficient": False, "missing": "x", "follow_up": "Where was Ilse Marrin born?"}
    for name, temperature in (("arcrag:r1p2", 0.0), ("arcrag:judge+r1p2", 1.0)):
        answer, client = ask(settings, typed_graph, name, sufficient=follow)
        judged = [k for k in client.requests if arc_prompt(k) == "sufficient"]
        assert [k["temperature"] for k in judged] == [temperature]
        assert answer.details.stats["passes_used"] == 2
    # the rest of the second run was the first's, served from the cache: nothing else changed
    assert {arc_prompt(k) for k in client.requests} == {"sufficient"}


def test_an_insufficient_verdict_without_a_follow_up_stops_as_no_follow_up(settings, typed_graph):
    answer, _ = ask(
        settings, typed_graph, "arcrag:r1p3", sufficient={"sufficient": False, "follow_up": ""}
    )
    check = answer.trace.find("judge:p1").payload
    assert (check.sufficient, check.said_sufficient, check.follow_up) == (True, False, "")
    assert answer.details.stats["stop_reason"] == "no follow-up"
    assert answer.details.stats["passes_used"] == 1
