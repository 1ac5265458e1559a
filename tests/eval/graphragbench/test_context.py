"""ace_lab.eval.graphragbench.context: the context texts a study's answers are judged on, as
stored with the record, from the slice, or from the graph of the method."""

from __future__ import annotations

import pytest

from ace_lab.eval.graphragbench.context import StudyContext, evidence_text
from ace_lab.eval.graphragbench.run import score_study
from tests.support.grb_study import STUDY, Judge, SameEmbedder, write_study
from tests.support.scripted import scripted_llm

#: Studies are scored with embeddings: their cache is the test's own.
pytestmark = pytest.mark.usefixtures("private_embedding_cache")


def test_stored_context_texts_are_used_as_they_are(grb_settings):
    write_study(
        grb_settings,
        {"naive": {"q-fr2": "melanoma"}},
        context_texts=["Melanoma arises from pigment cells."],
    )
    judge = Judge()
    llm = scripted_llm(grb_settings, judge)
    new = score_study(STUDY, settings=grb_settings, llm=llm, embedder=SameEmbedder())
    assert new.loc[0, "context_source"] == "record" and new.loc[0, "context_missing"] == 0
    relevance = [u for n, u in judge.asked if n == "grb_context_relevance"]
    assert relevance and all("Context: Melanoma arises from pigment cells." in u for u in relevance)


def test_evidence_texts_come_from_the_graphs_evidence_makers():
    from ace_lab.graph.seeds import SeedIndexes
    from ace_lab.graph.tables import GraphTables
    from ace_lab.retrieval import RetrievalGraph

    nodes = [
        {"id": "c1", "label": "Chunk", "name": "Doc", "description": "Alpha met Beta."},
        {"id": "a", "label": "Entity", "name": "Alpha", "type": "person",
         "description": "A sailor."},
        {"id": "b", "label": "Entity", "name": "Beta", "description": "A port."},
        {"id": "k1", "label": "Community", "name": "Harbour", "description": "Sailors meet."},
    ]  # fmt: skip
    edges = [{"id": "r1", "source": "a", "target": "b", "type": "RELATION", "predicate": "met"}]
    tables = GraphTables.from_records(nodes, edges, {"family": "test"})
    graph = RetrievalGraph(tables, SeedIndexes(None, None, None), embedder=SameEmbedder())
    assert evidence_text(graph, "c1") == "Doc: Alpha met Beta."
    assert evidence_text(graph, "r1") == graph.relation_evidence("r1").text
    assert evidence_text(graph, "a") == graph.entity_evidence("a").text
    assert evidence_text(graph, "k1") == "Harbour: Sailors meet."
    assert evidence_text(graph, "path:a|b") == graph.path_evidence(["a", "b"]).text
    assert evidence_text(graph, "path:a|zz") is None and evidence_text(graph, "row:1") is None


def test_the_graph_of_the_method_is_read_when_it_is_built(grb_settings):
    from ace_lab.graph.build import model_label, run_dir
    from ace_lab.graph.tables import GraphTables

    sl = write_study(grb_settings, {"naive": {"q-fr2": "melanoma"}})
    chunk = sl.questions[0].supporting_ids[0]
    nodes = [{"id": chunk, "label": "Chunk", "name": "Medical", "description": "graph text"}]
    tables = GraphTables.from_records(nodes, [], {"family": "hierarchical"})
    out = run_dir(grb_settings, sl.slice_id, "hierarchical", model_label("qwen1.5b"))
    tables.save(out / "tables")
    context = StudyContext(STUDY, grb_settings, SameEmbedder())
    got = context.texts({"method": "naive", "context_ids": [chunk, "nowhere"]})
    assert (got.texts, got.source, got.missing) == (
        ("Medical: graph text",),
        "graph:hierarchical",
        1,
    )
