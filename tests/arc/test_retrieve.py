"""ace_lab.arc.retrieve: rewrite and phrases with fallbacks, anchors named by index hits,
deterministic gap analysis, and the chunk scope of later queries."""

from __future__ import annotations

from ace_lab.arc.budget import Budget
from ace_lab.arc.execute import query_log
from ace_lab.arc.retrieve import names_phrase, retrieve, rewrite_query, search_phrases
from ace_lab.arc.schema import introspect, schema_for
from ace_lab.llm import LLM
from ace_lab.trace import Trace
from tests.support.replies import arc_reply
from tests.support.scripted import ScriptedClient


def llm_of(settings, **overrides) -> tuple[LLM, ScriptedClient]:
    client = ScriptedClient(arc_reply(**overrides))
    return LLM(settings, client=client), client


def test_malformed_rewrite_and_phrases_fall_back_to_the_question(settings):
    llm, _ = llm_of(settings, rewrite="not json", phrases='{"phrases": ["", "  "]}')
    assert rewrite_query(llm, "Who?") == ("Who?", True)
    assert search_phrases(llm, "Who?") == (["Who?"], True)
    llm, _ = llm_of(settings, phrases={"phrases": ["A", "A", " B "]})
    assert search_phrases(llm, "Who else?") == (["A", "B"], False)


def test_names_phrase_is_word_overlap_either_way():
    assert names_phrase("the Varrowmere Lantern Works", "Varrowmere Lantern Works")
    assert names_phrase("Ilse Marrin", "where was Ilse Marrin born")
    assert not names_phrase("Estlund Maritime Museum", "museum of Zorblax")
    assert not names_phrase("", "x")


def test_anchors_gaps_and_scope_on_both_families(typed_graph, openie_graph):
    phrases = ["Ilse Marrin", "Lake Varrow", "Zorblax Tower"]
    for graph in (typed_graph, openie_graph):
        schema, _ = schema_for(graph)
        trace = Trace()
        with trace.activate(), trace.step("retrieve") as step, query_log() as log:
            r = retrieve(graph, schema, phrases, Budget())
        texts = {a.text for a in r.anchors}
        assert texts == {"Ilse Marrin", "Lake Varrow"}, graph.name
        assert r.gaps == ("Zorblax Tower",) and r.store == "passages"
        passages = set(graph.indexes.get("passages").ids)
        assert r.chunk_ids and set(r.chunk_ids) <= passages
        assert {a.phrase for a in r.anchors} == {"Ilse Marrin", "Lake Varrow"}
        assert not set(r.anchor_keys) & passages  # anchors are never passage nodes
        assert step.queries and log and all(q.error is None for q in log)


def test_without_passage_provenance_the_triple_store_gives_hints(typed_graph):
    indexes = typed_graph.indexes  # introspected without the passage store: triples instead
    schema = introspect(
        typed_graph.store, (), indexes.get("relations").ids[:20], indexes.get("entities").ids[:20]
    )
    assert not schema.chunk_backed and schema.edge_key
    r = retrieve(typed_graph, schema, ["Ilse Marrin born"], Budget())
    assert r.store == "relations" and r.chunk_ids == ()
    assert any("Ilse Marrin -[" in h for h in r.hints)
    assert "Ilse Marrin" in {a.text for a in r.anchors}
