"""ace_lab.retrieval.graph: a view family loads like any family (``RetrievalGraph.load``) with
only the indexes its rows have, and ArcRAG answers from witness rows on the bare OpenIE graph
(no passages to fall back on), as the paper's ArcRAG does on its open-vocabulary graphs."""

from __future__ import annotations

import pytest

from ace_lab.arc.schema import schema_for
from ace_lab.graph.bare import bare_view
from ace_lab.graph.seeds import SeedIndexes
from ace_lab.llm import LLM
from ace_lab.registry import MethodName, graph_family, make_method, parse, spec
from ace_lab.retrieval import RetrievalGraph
from tests.support.replies import ARC_QUESTION, arc_prompt, arc_reply
from tests.support.scripted import ScriptedClient

BARE_METHODS = ("arcrag@openie-bare", "arcrag:strict@openie-bare", "direct-cypher@openie-bare")


@pytest.fixture(scope="module")
def bare_graph(openie_graph):
    indexes = openie_graph.indexes
    graph = RetrievalGraph(
        bare_view(openie_graph.tables),
        SeedIndexes(None, indexes.entities, indexes.relations),
        name="toy/openie-bare",
    )
    yield graph
    graph.close()


def test_a_view_loads_with_its_builds_entity_and_relation_indexes_only():
    graph = RetrievalGraph.load("hotpotqa_dev_sample200", 20, "openie-bare", model="qwen1.5b")
    source = RetrievalGraph.load("hotpotqa_dev_sample200", 20, "openie", model="qwen1.5b")
    assert graph.name == "hotpotqa_dev_sample200-n20-s0/openie-bare"
    assert graph.indexes.passages is None and source.indexes.passages is not None
    assert graph.indexes.entities.ids == source.indexes.entities.ids
    assert graph.indexes.relations.ids == source.indexes.relations.ids
    assert {n.label for n in graph.nodes.values()} == {"Entity"}
    assert not any(e.source_ids for e in graph.edges.values())
    assert not any(n.source_ids for n in graph.nodes.values())


def test_the_names_resolve_to_the_view_and_round_trip():
    for name in BARE_METHODS:
        assert str(parse(name)) == name and parse(name).family == "openie-bare"
        assert graph_family(name) == "openie-bare" and spec(name).needs_store
    assert parse("arcrag:r3p5@openie-bare") == MethodName("arcrag", "r3p5", "openie-bare")
    assert graph_family("arcrag@openie") == "openie"
    for bad in ("arcrag@openie-", "arcrag@-bare", "arcrag@openie--bare", "arcrag@openie_bare"):
        with pytest.raises(KeyError):
            parse(bad)
    with pytest.raises(KeyError):
        spec("arcrag@typed-bare")  # the grammar allows it; no such family


def test_introspection_sees_a_graph_that_is_not_chunk_backed(bare_graph):
    schema, _ = schema_for(bare_graph)
    assert not schema.chunk_backed and schema.passage_label is None
    assert dict(schema.labels) == {"Entity": len(bare_graph.nodes)}
    assert dict(schema.rel_types) == {"RELATION": len(bare_graph.edges)}
    assert schema.relation_property == "predicate" and schema.scope("r") == "true"
    assert schema.key == "id" and schema.edge_key == "id"  # found from the entity/relation ids
    assert "Provenance" not in schema.render() and "source_ids" not in schema.render()


@pytest.mark.parametrize("name", ["arcrag@openie-bare", "arcrag:strict@openie-bare"])
def test_arcrag_answers_from_witness_rows_on_the_bare_graph(settings, bare_graph, name):
    client = ScriptedClient(arc_reply())
    answer = make_method(name, bare_graph, LLM(settings, client=client)).answer(ARC_QUESTION)
    steps = {s.name: s for s in answer.trace.steps}
    assert not steps["schema"].payload.schema["chunk_backed"]
    retrieval = steps["retrieve:p1"].payload
    # anchors come from the triple store: the ends of the hit triples that the phrases name
    assert retrieval.store == "relations" and not retrieval.chunk_ids
    assert {a.text for a in retrieval.anchors} >= {"Ilse Marrin", "Varrowmere Lantern Works"}
    assert retrieval.hints and retrieval.gaps == ("Zorblax Tower",)
    assert answer.details.stats["witness_edges"] > 0
    # the context is the witness as rows: no passage, nothing from a fallback
    assert answer.context.evidence and {e.kind for e in answer.context} == {"row"}
    assert not any(e.meta.get("fallback") for e in answer.context)
    assert answer.details.stats.get("context_from_fallback", 0.0) == 0.0
    assert not any(e.source_ids for e in answer.context)
    answered = [k for k in client.requests if arc_prompt(k) == "answer"][-1]
    prompt = answered["messages"][-1]["content"]
    assert "born in" in prompt and "Kesterholm" in prompt  # the witness row reached the model
    assert answer.text == "Kesterholm"


def test_direct_cypher_on_the_bare_graph_answers_from_its_rows(settings, bare_graph):
    client = ScriptedClient(arc_reply())
    answer = make_method("direct-cypher@openie-bare", bare_graph, LLM(settings, client=client))
    found = answer.answer(ARC_QUESTION)
    assert [arc_prompt(k) for k in client.requests] == ["direct", "answer"]
    assert found.context.evidence and {e.kind for e in found.context} == {"row"}
