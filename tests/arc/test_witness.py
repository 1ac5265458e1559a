"""ace_lab.arc.witness and ace_lab.arc.answer: elements tagged by pass, subplan and query,
accumulated across passes and replayed; the context composed from passages or from rows."""

from __future__ import annotations

from dataclasses import replace

from ace_lab.arc.answer import compose, sufficient
from ace_lab.arc.execute import run_cypher
from ace_lab.arc.schema import schema_for
from ace_lab.arc.witness import Witness
from ace_lab.llm import LLM
from tests.support.replies import arc_reply
from tests.support.scripted import ScriptedClient

EDGES = "MATCH (a)-[r]->(b) WHERE a.id = $who AND b.id <> $who RETURN a, r, b ORDER BY b.id"


def records(graph):
    schema, _ = schema_for(graph)
    read = lambda q, p: run_cypher(graph.store, q, p, timeout_ms=5000, max_rows=50)  # noqa: E731
    born = read(EDGES, {"who": "ent:ilse marrin"})
    works = read(EDGES, {"who": "ent:varrowmere lantern works"})
    path = read("MATCH p=(a)-[*1..2]->(b) WHERE a.id = 'ent:ilse marrin' RETURN p LIMIT 3", {})
    scalar = read("MATCH (a) WHERE a.id = 'ent:ilse marrin' RETURN a.name AS who, 1861 AS y", {})
    return schema, born, works, path, scalar


def test_witness_tags_and_accumulates_across_passes(typed_graph):
    schema, born, works, path, scalar = records(typed_graph)
    w = Witness()
    assert w.add(born, 1, 0, schema) > 0
    w.add(works, 2, 1, schema)
    again = w.add(born, 2, 0, schema)
    w.add(path, 2, 2, schema)
    w.add(scalar, 3, 0, schema)
    assert again == 0
    edge = next(e for e in w.edges if "BORN_IN" in e.text)
    assert (edge.pass_, edge.subplan, edge.query) == (1, 0, "p1.s0")
    assert edge.text == "Ilse Marrin -[BORN_IN]-> Kesterholm" and "p2.s0" in edge.seen_in
    assert edge.provenance == ("toy-01",) and edge.source == "ent:ilse marrin"
    assert {e.pass_ for e in w.elements.values()} == {1, 2, 3}
    assert [r.text for r in w.rows] == ["who=Ilse Marrin | y=1861"]
    assert all(e.source and e.target for e in w.edges)  # paths and (a, r, b) rows give ends
    assert w.stats()["witness_queries"] == 5 and w.passages()[0] == "toy-01"


def test_replay_reexecutes_the_stored_queries(typed_graph):
    schema, born, works, _, _ = records(typed_graph)
    w = Witness()
    w.add(born, 1, 0, schema)
    w.add(works, 1, 1, schema)
    results = w.replay(typed_graph.store)
    assert [r.same for r in results] == [True, True]
    assert results[0].rows_before == results[0].rows_after == born.n_rows
    w.queries[1] = replace(w.queries[1], rows=w.queries[1].rows[:-1])  # tampered record
    assert [r.same for r in w.replay(typed_graph.store)] == [True, False]


def test_context_is_the_witness_passages_on_chunk_backed_graphs(typed_graph):
    schema, born, works, _, _ = records(typed_graph)
    w = Witness()
    w.add(works, 1, 0, schema)
    w.add(born, 2, 0, schema)
    items = compose(typed_graph, schema, w, ("toy-02",))
    assert [e.kind for e in items] == ["passage"] * len(items)
    assert [e.id for e in items] == w.passages() and not any(e.meta.get("fallback") for e in items)
    assert items[0].round == 1 and items[0].meta["witness_query"] == "p1.s0"
    empty = compose(typed_graph, schema, Witness(), ("toy-02",))
    assert [e.id for e in empty] == ["toy-02"] and empty[0].meta["fallback"]


def test_scalar_rows_reach_the_context_on_chunk_backed_graphs(typed_graph):
    # an acceptable ``RETURN n.name`` has no passage behind it but is the query's answer
    schema, _, works, _, scalar = records(typed_graph)
    w = Witness()
    w.add(scalar, 1, 0, schema)
    only_rows = compose(typed_graph, schema, w, ("toy-02",))
    assert [e.kind for e in only_rows] == ["row", "passage"]
    assert only_rows[0].text == "who=Ilse Marrin | y=1861" and only_rows[1].meta["fallback"]
    w.add(works, 1, 1, schema)
    both = compose(typed_graph, schema, w, ("toy-02",))
    assert both[0].kind == "row" and [e.id for e in both[1:]] == w.passages()


def test_context_is_the_rows_without_provenance(typed_graph):
    schema, born, _, _, scalar = records(typed_graph)
    bare = replace(schema, provenance_property=None, passage_label=None)
    w = Witness()
    w.add(born, 1, 0, bare)
    w.add(scalar, 1, 1, bare)
    items = compose(typed_graph, bare, w, ("toy-01",))
    assert {e.kind for e in items} == {"row"}
    assert "Ilse Marrin -[BORN_IN]-> Kesterholm" in [e.text for e in items]
    assert "who=Ilse Marrin | y=1861" in [e.text for e in items]


def test_sufficiency_judgement(settings):
    def judge(reply):
        llm = LLM(settings, client=ScriptedClient(arc_reply(sufficient=reply)))
        return sufficient(llm, f"q{id(reply)}", "a", "ctx")

    assert judge({"sufficient": True, "follow_up": "ignored"}) == (True, "", False)
    assert judge({"sufficient": False, "follow_up": "Where is X?"}) == (False, "Where is X?", False)
    assert judge({"sufficient": False, "follow_up": " "}) == (True, "", False)  # no follow-up
    assert judge("nonsense") == (True, "", True)
