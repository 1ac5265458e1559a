"""ace_lab.arc.constrain with the Generator and the explorers: under the grammar switch a local
(llama.cpp) endpoint gets the schema's GBNF and a reply outside it is refused, never run; a
remote endpoint gets the JSON query plan, whose unknown labels fail validation; each attempt
records its constraint; with the switch off requests are what they were."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import httpx
import openai
import pytest

from ace_lab.arc.budget import Budget
from ace_lab.arc.constrain import OUTSIDE, constraint_for, outside
from ace_lab.arc.execute import query_log
from ace_lab.arc.explore import explore
from ace_lab.arc.generate import run_subplan
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.plan import Subplan
from ace_lab.arc.retrieve import Retrieval
from ace_lab.arc.schema import schema_for
from ace_lab.arc.steps import ArcAnchor, CypherAttempt
from ace_lab.llm import LLM
from ace_lab.steps import from_record, to_record
from ace_lab.trace import Trace
from tests.support.arc_committed import ANCHOR, committed_graph
from tests.support.replies import arc_prompt, arc_reply
from tests.support.scripted import ScriptedClient

PERSON = ArcAnchor(ANCHOR, "Carsten Erik Olsen", ("Person",), "Carsten Erik Olsen")
SUBPLAN = Subplan(0, "birthplace of the anchor", ("born in",), False, (ANCHOR,))
BORN = "MATCH (a:Person)-[r:BORN_IN]->(b:Location) WHERE a.id IN $anchors RETURN a, r, b"
PLANET = "MATCH (a:Planet)-[r]->(b) WHERE a.id IN $anchors RETURN b"
#: The retrieved passage that holds the anchor's BORN_IN edge (its provenance).
CHUNK = "e6d66dff4e73eed0"
PLAN = {"start_label": "Person", "hops": [{"type": "BORN_IN", "direction": "out", "label": "any"}]}


@pytest.fixture(scope="module")
def graph() -> Any:
    g = committed_graph("constrain/committed-typed")
    yield g
    g.close()


def remote(settings):
    return replace(settings, llm=replace(settings.llm, base_url="http://127.0.0.1:9/v1", model="m"))


def run(settings, graph, grammar: bool, patterns: bool = False, **replies):
    client = ScriptedClient(arc_reply(**replies))
    llm = LLM(settings, client=client)
    trace = Trace()
    with trace.activate(), trace.step("cypher"):
        result = one_subplan(llm, graph, retries=2, grammar=grammar, patterns=patterns)
    return result, client.requests


def one_subplan(
    llm: LLM, graph: Any, *, retries: int, grammar: bool, patterns: bool = False
) -> Any:
    """SUBPLAN's Generator attempts at the anchor PERSON on ``graph``."""
    schema, _ = schema_for(graph)
    iface = QueryInterface(anchors=(PERSON,))
    with query_log():
        return run_subplan(
            llm,
            graph.store,
            schema,
            iface,
            SUBPLAN,
            "location",
            "Where was he born?",
            (CHUNK,),
            Budget(retries=retries),
            grammar=grammar,
            patterns=patterns,
        )


def test_a_local_endpoint_writes_under_the_grammar_and_a_reply_outside_it_never_runs(
    settings, graph
):
    result, requests = run(
        settings, graph, True, compile={"cypher": PLANET}, refine={"cypher": BORN}
    )
    first, second = result.attempts
    assert first.record.error == OUTSIDE and first.record.ms == 0 and not first.acceptable
    assert second.acceptable and second.record.rows[0]["b"]["name"] == "Copenhagen"
    assert [a.constraint for a in result.attempts] == ["gbnf", "gbnf"]
    for request in requests:
        grammar = request["extra_body"]["grammar"]
        assert "response_format" not in request and 'alabel ::= "`Person`"' in grammar
        assert "Planet" not in grammar
        assert "[ent:carsten erik olsen] (Person)" in request["messages"][1]["content"]
    payload = from_record(to_record(second.recorded()))
    assert isinstance(payload, CypherAttempt) and payload.constraint == "gbnf"


def test_with_patterns_a_first_hop_the_anchors_lack_never_runs(settings, graph):
    schema, _ = schema_for(graph)
    held = set(schema.hops)
    assert ("Person", "ACTED_IN", "Movie") in held  # the graph holds it, the anchor does not
    acted = "MATCH (a:Person)-[r:ACTED_IN]->(b:Movie) WHERE a.id IN $anchors RETURN b"
    assert outside(acted, schema, ("Person",), anchored=True) is None  # the plain grammar's
    result, requests = run(
        settings, graph, True, patterns=True, compile={"cypher": acted}, refine={"cypher": BORN}
    )
    first, second = result.attempts
    assert first.record.error == OUTSIDE and first.record.ms == 0 and not first.acceptable
    assert second.acceptable and second.record.rows[0]["b"]["name"] == "Copenhagen"
    assert [a.constraint for a in result.attempts] == ["gbnf+patterns"] * 2
    assert all("at-r-" in r["extra_body"]["grammar"] for r in requests)  # the anchors' own hops


def test_a_remote_endpoint_writes_a_json_plan_and_an_unknown_label_fails_validation(
    settings, graph
):
    bad = {"plan": {**PLAN, "start_label": "Planet"}}
    result, requests = run(remote(settings), graph, True, compile=bad, refine={"plan": PLAN})
    first, second = result.attempts
    assert first.record.error.startswith("EmptyQuery") and not first.acceptable
    assert second.acceptable and second.record.text.startswith("MATCH (a:`Person`)-[r:`BORN_IN`]")
    assert [a.constraint for a in result.attempts] == ["json-plan", "json-plan"]
    compile_requests = [r for r in requests if arc_prompt(r) == "compile"]
    assert len(compile_requests) == 3  # llm.json's attempts, every one refused by validation
    for request in requests:
        schema = request["response_format"]["json_schema"]
        assert schema["name"] == "CypherPlanOut" and "extra_body" not in request
        assert '"plan"' in request["messages"][0]["content"]


def test_with_the_switch_off_requests_are_unchanged(settings, graph):
    result, requests = run(settings, graph, False, compile={"cypher": BORN})
    assert result.attempts[0].acceptable and result.attempts[0].constraint == ""
    (request,) = requests
    assert "extra_body" not in request
    assert request["response_format"]["json_schema"]["name"] == "CypherOut"
    assert request["messages"][1]["content"].endswith(
        "- Carsten Erik Olsen [ent:carsten erik olsen]"
    )
    assert constraint_for(LLM(settings, client=ScriptedClient([])), False) == ""


def test_an_explorer_under_the_grammar_runs_only_queries_in_its_language(settings, graph):
    unlabelled = "MATCH (a)-[r]-(b) WHERE a.id IN $anchors RETURN a, r, b LIMIT 5"
    turn = {
        "queries": [unlabelled, BORN],
        "descriptors": ["born in"],
        "aliases": [],
        "notes": "",
        "done": True,
    }
    client = ScriptedClient(arc_reply(explore=turn))
    schema, _ = schema_for(graph)
    retrieval = Retrieval(("p",), "passages", {}, (PERSON,), (), (), ())
    with query_log() as log:
        explore(
            LLM(settings, client=client),
            graph.store,
            schema,
            "Where?",
            retrieval,
            Budget(explorers=1, explorer_turns=1),
            grammar=True,
        )
    ran = {r.text: r for r in log if r.purpose.startswith("explore.")}
    assert ran[unlabelled].error == OUTSIDE and not ran[unlabelled].rows
    assert ran[BORN].error is None and ran[BORN].rows
    assert "extra_body" in client.requests[0]


def test_a_server_that_refuses_the_grammar_fails_the_attempt_not_the_run(settings, graph):
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    refused = openai.BadRequestError(
        "failed to parse grammar", response=httpx.Response(400, request=request), body=None
    )
    reply = arc_reply()
    client = ScriptedClient(lambda kw: refused if "extra_body" in kw else reply(kw))
    schema, _ = schema_for(graph)
    trace = Trace()
    with trace.activate(), trace.step("cypher") as step, query_log():
        result = run_subplan(
            LLM(settings, client=client),
            graph.store,
            schema,
            QueryInterface(anchors=(PERSON,)),
            SUBPLAN,
            "location",
            "Where?",
            (CHUNK,),
            Budget(retries=1),
            grammar=True,
        )
    (attempt,) = result.attempts
    assert attempt.record.error.startswith("EmptyQuery") and attempt.constraint == "gbnf"
    assert len(client.requests) == 1  # a refused grammar is not sent again at another seed
    assert (
        step.repairs[-1].outcome == "fallback" and "grammar refused" in step.repairs[-1].errors[0]
    )


def test_arcrag_strict_grammar_never_runs_an_unconstrained_reply(settings, graph):
    """``arcrag:strict+grammar`` with the scripted agents' unconstrained Cypher (unlabelled
    nodes, no anchors): every Generator and explorer request carries the grammar, and not one
    of their queries reaches the store."""
    from ace_lab.arc.steps import CypherExecution
    from ace_lab.registry import make_method

    client = ScriptedClient(arc_reply(phrases={"phrases": ["Carsten Erik Olsen"]}))
    method = make_method("arcrag:strict+grammar", graph, LLM(settings, client=client))
    answer = method.answer("Where was Carsten Erik Olsen born?")
    attempts = [
        a
        for step in answer.trace.steps
        if isinstance(step.payload, CypherExecution)
        for a in step.payload.attempts
    ]
    assert attempts and all(a.constraint == "gbnf" and not a.templated for a in attempts)
    assert all(a.query.error == OUTSIDE for a in attempts)
    cypher_requests = [
        r for r in client.requests if arc_prompt(r) in ("compile", "refine", "explore")
    ]
    assert cypher_requests and all("extra_body" in r for r in cypher_requests)
    assert answer.details.stats["first_valid_rate"] == 0.0


@pytest.mark.integration
def test_the_local_server_samples_the_generators_reply_inside_the_grammar(settings, graph):
    """The real local tier (llama.cpp) gets the schema's GBNF: whatever the smoke model writes
    for one Generator attempt is a sentence of the grammar (or, cut off by ``max_tokens``,
    nothing), never a query naming what the schema lacks. Starts the local server (one
    thread, one slot) and stops it; skipped where the tier's weights are not installed."""
    from ace_lab.llm import server
    from ace_lab.llm.models import prepare_model

    try:
        prepare_model(settings.llm.tier, settings.model_dir)
    except Exception as exc:  # no weights in this checkout: nothing to send the grammar to
        pytest.skip(f"no local model for tier {settings.llm.tier}: {exc}")
    llm_settings = replace(settings.llm, threads=1, parallel=1, timeout_s=300.0, max_retries=1)
    settings = replace(settings, llm=llm_settings)
    llm = LLM(settings)
    schema, _ = schema_for(graph)
    try:
        result = one_subplan(llm, graph, retries=1, grammar=True)
    finally:
        server.stop(settings)
    (attempt,) = result.attempts
    assert attempt.constraint == "gbnf" and attempt.record.error != OUTSIDE
    text = attempt.record.text
    assert text == "" or outside(text, schema, ("Person",), anchored=True) is None, text
    assert any(c.tag == "arc.compile" for c in llm.ledger.calls)
