"""ace_lab.arc.method with the switches of ``arcrag:strict`` (the paper's ArcRAG): no scan
template (every attempt model-written), no fallback passages (an empty witness answers from an
empty context), and the provenance of the context every record carries."""

from __future__ import annotations

import json

import pytest

from ace_lab.arc.steps import ArcGeneration, CypherExecution
from ace_lab.ask import format_trace
from ace_lab.llm import LLM
from ace_lab.registry import make_method
from ace_lab.steps import from_record, to_record
from tests.support.replies import ARC_QUESTION, arc_prompt, arc_reply
from tests.support.scripted import ScriptedClient

#: A query that runs and returns nothing: no attempt is acceptable, the witness stays empty.
NOTHING = {"cypher": "MATCH (a) WHERE a.id = 'nobody' RETURN a"}
ORIGINS = ("model", "template", "fallback")


def ask(settings, graph, name, **overrides):
    client = ScriptedClient(arc_reply(**overrides))
    answer = make_method(name, graph, LLM(settings, client=client)).answer(ARC_QUESTION)
    return answer, client


def payloads(answer, kind):
    return [s.payload for s in answer.trace.steps if isinstance(s.payload, kind)]


def shares(stats):
    return [stats[f"context_from_{o}"] for o in ORIGINS]


def items(stats):
    return [stats[f"context_items_{o}"] for o in ORIGINS]


def test_default_arcrag_starts_the_open_scan_from_the_template(settings, typed_graph):
    answer, _ = ask(settings, typed_graph, "arcrag")
    attempts = [a for e in payloads(answer, CypherExecution) for a in e.attempts]
    assert [a.templated for a in attempts] == [False, True]  # s0 written, s1 the scan template
    stats = answer.details.stats
    assert stats["templated_queries"] == 1
    assert sum(shares(stats)) == pytest.approx(1.0, abs=1e-3)
    assert sum(items(stats)) == len(answer.context.evidence) > 0
    (generation,) = payloads(answer, ArcGeneration)
    assert len(generation.sources) == len(generation.context_ids)
    assert [generation.sources.count(o) for o in ORIGINS] == items(stats)
    queries = {q["query_id"]: q["templated"] for q in answer.details.witness["queries"]}
    assert queries == {"p1.s0": False, "p1.s1": True}
    assert "(1 template, 0 model-written)" in payloads(answer, CypherExecution)[1].line()


def test_strict_writes_every_attempt_with_the_model(settings, typed_graph):
    answer, client = ask(settings, typed_graph, "arcrag:strict")
    attempts = [a for e in payloads(answer, CypherExecution) for a in e.attempts]
    assert attempts and not any(a.templated for a in attempts)
    assert [arc_prompt(k) for k in client.requests].count("compile") == 2  # s0 and the scan
    stats = answer.details.stats
    assert stats["templated_queries"] == 0 and stats["written_subplans"] == stats["subplans"]
    assert stats["context_from_template"] == 0.0 and stats["context_items_template"] == 0
    assert stats["context_from_model"] == pytest.approx(1.0)
    assert not any(q["templated"] for q in answer.details.witness["queries"])
    (generation,) = payloads(answer, ArcGeneration)
    assert set(generation.sources) == {"model"}


@pytest.mark.parametrize("head", ["arcrag", "arcrag-generator"])
def test_strict_with_an_empty_witness_answers_from_an_empty_context(settings, typed_graph, head):
    strict, client = ask(settings, typed_graph, f"{head}:strict", compile=NOTHING, refine=NOTHING)
    stats = strict.details.stats
    assert stats["witness_queries"] == 0 and not strict.context.evidence
    assert shares(stats) == [0.0, 0.0, 0.0] and items(stats) == [0, 0, 0]
    (generation,) = payloads(strict, ArcGeneration)
    assert generation.context_ids == () and not generation.fallback
    assert not any(s.added for s in strict.trace.steps if s.kind == "generate")
    answer_prompts = [k for k in client.requests if arc_prompt(k) == "answer"]
    assert "(no context retrieved)" in json.dumps(answer_prompts[0]["messages"])


def test_without_strict_an_empty_witness_falls_back_to_the_retrieved_passages(
    settings, typed_graph
):
    helped, _ = ask(settings, typed_graph, "arcrag-generator", compile=NOTHING, refine=NOTHING)
    stats = helped.details.stats
    assert stats["witness_queries"] == 0 and helped.context.evidence
    assert shares(stats) == [0.0, 0.0, 1.0]
    assert stats["context_items_fallback"] == len(helped.context.evidence)
    (generation,) = payloads(helped, ArcGeneration)
    assert generation.fallback and set(generation.sources) == {"fallback"}


def test_the_new_fields_reload_and_old_generation_records_still_load(settings, typed_graph):
    answer, _ = ask(settings, typed_graph, "arcrag:strict")
    (generation,) = payloads(answer, ArcGeneration)
    stored = json.loads(json.dumps(to_record(generation)))
    assert from_record(stored) == generation
    old = {k: v for k, v in stored.items() if k != "sources"}  # written before it was kept
    loaded = from_record(old)
    assert isinstance(loaded, ArcGeneration) and loaded.sources == ()
    assert "model" not in loaded.line() and str(len(loaded.context_ids)) in loaded.line()


def test_the_trace_shows_model_written_cypher_producing_the_witness(settings, typed_graph):
    answer, _ = ask(settings, typed_graph, "arcrag:strict")
    shown = format_trace(answer.trace)  # what ``ace-lab ask --trace`` prints
    assert "p1.s1: 1 model-written attempt(s), accepted" in shown
    # each attempt is listed under its summary: who wrote it, the verdict, the Cypher itself
    execution = next(p for p in payloads(answer, CypherExecution) if p.accepted)
    cypher = " ".join(execution.attempts[0].query.text.split())
    assert f"attempt 1 (model) acceptable: {execution.attempts[0].reason}" in shown
    assert f"cypher: {cypher}" in shown
    assert "template" not in shown.split("== generate:p1")[0]
    assert "model)" in shown.split("== generate:p1")[1]  # the answer's items by origin
