"""ace_lab.arc.explore and ace_lab.arc.interface: the probe's signatures, parallel explorers
bounded by their turn budget, aliases and descriptors collected, bad queries recorded."""

from __future__ import annotations

import json

from ace_lab.arc.budget import Budget
from ace_lab.arc.execute import query_log
from ace_lab.arc.explore import explore, probe
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.retrieve import retrieve
from ace_lab.arc.schema import schema_for
from ace_lab.llm import LLM
from ace_lab.trace import Trace
from tests.support.replies import arc_prompt, arc_reply
from tests.support.scripted import ScriptedClient

PHRASES = ["Ilse Marrin", "Varrowmere Lantern Works"]


def setup(graph):
    schema, _ = schema_for(graph)
    return schema, retrieve(graph, schema, PHRASES, Budget())


def test_probe_reads_signatures_with_counts_at_the_anchors(typed_graph, openie_graph):
    schema, r = setup(typed_graph)
    sigs, paths = probe(typed_graph.store, schema, r, Budget())
    assert ("Person", "BORN_IN", "Place", 1) in sigs
    assert "Ilse Marrin -[BORN_IN]-> Kesterholm" in paths
    schema, r = setup(openie_graph)
    sigs, paths = probe(openie_graph.store, schema, r, Budget())
    assert any(s[1] == "born in" for s in sigs) and "Ilse Marrin -[born in]-> Kesterholm" in paths


def test_explorers_run_in_parallel_within_their_turn_budget(settings, typed_graph):
    turn = {
        "queries": [
            "MATCH (a)-[r]->(b) WHERE a.id IN $anchors RETURN a, r, b",
            "MATCH (n) DETACH DELETE n",
            "MATCH p=(a)-[*]-(b) RETURN count(p) AS n",
        ],
        "descriptors": ["co-founded", " "],
        "aliases": [["Ilse Marrin", "I. Marrin"], ["x"]],
        "notes": "n",
        "done": False,
    }
    client = ScriptedClient(arc_reply(explore=turn))
    schema, r = setup(typed_graph)
    budget = Budget(explorers=2, explorer_turns=2)
    trace = Trace()
    with trace.activate(), trace.step("explore"), query_log() as log:
        interface = explore(LLM(settings, client=client), typed_graph.store, schema, "q", r, budget)
    calls = [arc_prompt(k) for k in client.requests]
    assert calls.count("explore") == 4  # 2 explorers × 2 turns, never more
    focuses = {
        k["messages"][1]["content"].split("Focus: ")[1].split("\n")[0] for k in client.requests
    }
    assert len(focuses) == 2
    logged = interface.built(1, tuple(q.recorded() for q in log)).queries
    writes = [q for q in logged if "DELETE" in q.text]
    assert len(writes) == 4 and all("WriteQueryError" in q.error for q in writes)
    assert any(q.rewritten for q in logged)
    assert "co-founded" in interface.descriptors and "BORN_IN" in interface.descriptors
    assert interface.alias_groups == (("Ilse Marrin", "I. Marrin"),)
    assert "Ilse Marrin -[CO_FOUNDED]-> the Varrowmere Lantern Works" in interface.paths
    assert interface.size == len(interface.descriptors) + len(interface.signatures) + 1
    # the first turn's queries and results reach the second turn
    assert any("Turn 1 query" in k["messages"][1]["content"] for k in client.requests)


def test_malformed_explorer_output_ends_that_explorer(settings, typed_graph):
    client = ScriptedClient(arc_reply(explore="I would rather not"))
    schema, r = setup(typed_graph)
    trace = Trace()
    with trace.activate(), trace.step("explore") as step:
        interface = explore(
            LLM(settings, client=client),
            typed_graph.store,
            schema,
            "q",
            r,
            Budget(explorers=2, explorer_turns=3),
        )
    assert [arc_prompt(k) for k in client.requests].count("explore") == 6  # 3 JSON tries each
    assert [r.outcome for r in step.repairs] == ["fallback", "fallback"]
    assert interface.signatures and not interface.alias_groups  # the probe still counts


def test_interface_renders_every_part_and_serialises():
    empty = QueryInterface()
    assert empty.empty and "nothing was explored" in empty.render()
    full = QueryInterface(
        descriptors=("a",),
        signatures=(("X", "a", "Y", 2),),
        alias_groups=(("m", "n"),),
        paths=("m -[a]-> y",),
        notes=("ok",),
    )
    text = full.render()
    assert "(X)-[a]->(Y) ×2" in text and "m = n" in text and "- m -[a]-> y" in text
    assert json.loads(json.dumps(full.to_dict()))["signatures"] == [["X", "a", "Y", 2]]
