"""ace_lab.graph.bare: the ``openie-bare`` view has no provenance (no passage nodes, no
``MENTIONED_IN``, no ``source_ids`` in the tables or the store), one node label and one
relationship type with the predicate as a property, and the entities and triples of the OpenIE
graph it is derived from; ``load_graph`` reads it from the committed OpenIE builds."""

from __future__ import annotations

import pytest

from ace_lab.graph.bare import BARE_FAMILY, bare_view, view_source
from ace_lab.graph.build import GRAPH_FAMILIES, build_graph, load_graph
from ace_lab.graph.seeds import SeedIndexes, seed_documents
from ace_lab.graph.store.load_plan import edge_steps, node_steps
from ace_lab.graph.tables import GraphTables, GraphTablesError
from ace_lab.retrieval import RetrievalGraph

#: The committed OpenIE builds the view reads (data/graphs/<slice>/openie/qwen1.5b).
COMMITTED = ("hotpotqa_dev_sample200", "2wikimultihopqa_hipporag1000")


@pytest.fixture(scope="module")
def bare_graph(openie_graph):
    """The toy OpenIE graph's bare view with the OpenIE graph's entity and relation indexes."""
    indexes = openie_graph.indexes
    tables = bare_view(openie_graph.tables)
    graph = RetrievalGraph(
        tables, SeedIndexes(None, indexes.entities, indexes.relations), name="toy/openie-bare"
    )
    yield graph
    graph.close()


def assert_bare_of(view: GraphTables, source: GraphTables) -> None:
    """``view`` is ``source`` with its provenance stripped: nothing else added or lost."""
    assert set(view.nodes["label"]) == {"Entity"}
    assert set(view.edges["type"]) == {"RELATION"}
    assert not any(len(ids) for ids in view.nodes["source_ids"])
    assert not any(len(ids) for ids in view.edges["source_ids"])
    entities = source.nodes_with_label("Entity")
    triples = source.edges_of_type("RELATION")
    assert len(view.nodes) == len(entities) and len(view.edges) == len(triples)
    assert list(view.nodes["id"]) == list(entities["id"])
    assert list(view.edges["id"]) == list(triples["id"])
    columns = ["source", "target", "predicate", "description", "weight"]
    assert view.edges[columns].equals(triples[columns].reset_index(drop=True))
    assert (view.edges["predicate"] != "").all()  # the relation is a property of the one type
    assert view.meta["family"] == BARE_FAMILY and view.meta["provenance"] is False
    assert not view.provenance and source.provenance


def test_the_view_strips_provenance_and_keeps_every_entity_and_triple(openie_graph):
    source = openie_graph.tables
    assert {"Chunk", "Entity"} <= set(source.nodes["label"])
    assert "MENTIONED_IN" in set(source.edges["type"])
    view = bare_view(source)
    assert_bare_of(view, source)
    assert view.meta["dropped"]["node_labels"] == {"Chunk": 3}
    # the OpenIE build's entity and relation indexes are the view's: same documents
    docs, built = seed_documents(view), seed_documents(source)
    assert docs["passages"] == ([], [])
    assert docs["entities"] == built["entities"] and docs["relations"] == built["relations"]


def test_only_an_openie_graph_has_a_bare_view(typed_graph):
    with pytest.raises(GraphTablesError, match="needs an openie graph"):
        bare_view(typed_graph.tables)


def test_the_load_plan_writes_no_source_ids_for_the_view(openie_graph):
    view = bare_view(openie_graph.tables)
    statements = [s for _, steps in node_steps(view) for s in steps] + list(edge_steps(view))
    assert statements and all("source_ids" not in s.cypher for s in statements)
    assert all("source_ids" not in row for s in statements for row in s.rows)
    assert {label for label, _ in node_steps(view)} == {"Entity"}
    # the OpenIE graph itself still loads its provenance
    assert all("source_ids" in s.cypher for s in edge_steps(openie_graph.tables))


def test_the_store_holds_one_label_one_type_and_no_provenance(bare_graph):
    store = bare_graph.store
    schema = store.schema()
    assert schema.node_labels == ("Entity",) and schema.relationship_types == ("RELATION",)
    assert "source_ids" not in schema.property_keys and "predicate" in schema.property_keys
    count = "RETURN count(*) AS c"
    rows = store.read(f"MATCH (n) WHERE n.source_ids IS NOT NULL {count}").rows
    assert rows[0]["c"] == 0
    rows = store.read(f"MATCH ()-[r]->() WHERE r.source_ids IS NOT NULL {count}").rows
    assert rows[0]["c"] == 0
    tables = bare_graph.tables
    assert store.read(f"MATCH (n:Entity) {count}").rows[0]["c"] == len(tables.nodes)
    assert store.read(f"MATCH ()-[r:RELATION]->() {count}").rows[0]["c"] == len(tables.edges)
    predicates = {r["p"] for r in store.read("MATCH ()-[r]->() RETURN r.predicate AS p").rows}
    assert predicates == set(tables.edges["predicate"])


def test_the_view_is_a_family_without_a_build_of_its_own(settings):
    assert BARE_FAMILY in GRAPH_FAMILIES and view_source(BARE_FAMILY) == "openie"
    assert view_source("typed") == "typed"
    with pytest.raises(ValueError, match="view of the openie build"):
        build_graph("toy", 8, BARE_FAMILY, settings=settings, progress=False)
    with pytest.raises(FileNotFoundError, match="--family openie"):
        load_graph("toy", 8, BARE_FAMILY, model="smollm135m", settings=settings)


@pytest.mark.parametrize("dataset", COMMITTED)
def test_load_graph_reads_the_committed_openie_build(dataset):
    """Both multi-hop slices' bare graphs load from data/graphs (a clone has them)."""
    source, out = load_graph(dataset, 20, "openie", model="qwen1.5b")
    view, view_out = load_graph(dataset, 20, BARE_FAMILY, model="qwen1.5b")
    assert view_out == out and out.parts[-2:] == ("openie", "qwen1.5b")
    assert_bare_of(view, source)
    assert view.meta["slice_id"] == f"{dataset}-n20-s0"
