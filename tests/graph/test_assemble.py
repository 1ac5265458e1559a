"""ace_lab.graph.assemble: per-chunk mentions and triples become nodes and edges with provenance."""

from __future__ import annotations

from ace_lab.data import Chunk
from ace_lab.graph.assemble import TripleAssembler
from ace_lab.graph.names import short_hash
from ace_lab.graph.tables import GraphTables

CHUNKS = [Chunk(f"c{i}", f"d{i}", f"Title {i}", f"text {i}", 0, 0) for i in range(3)]


def _tables(graph: TripleAssembler) -> GraphTables:
    return GraphTables.from_records(*graph.rows(CHUNKS))


def test_untyped_entities_merge_by_name_and_keep_their_chunks():
    graph = TripleAssembler()
    assert graph.mention("The Lantern Works", "c0") == "ent:lantern works"
    assert graph.mention("...", "c0") == ""  # nothing nameable: not counted
    graph.triple("c1", "Ilse", "Founded", "Lantern Works", rel_type="RELATION", key="founded")
    graph.triple("c2", "Ilse", "founded", "lantern works", rel_type="RELATION", key="founded")
    nodes, edges = graph.rows(CHUNKS)

    assert [n["id"] for n in nodes] == ["c0", "c1", "c2", "ent:ilse", "ent:lantern works"]
    assert all(n["label"] == "Chunk" for n in nodes[:3])
    lantern = nodes[4]
    assert lantern["label"] == "Entity" and "type" not in lantern
    assert lantern["source_ids"] == ["c0", "c1", "c2"]
    # three surface forms, one each: the first seen wins the tie
    assert lantern["name"] == "The Lantern Works"

    mentions = [e for e in edges if e["type"] == "MENTIONED_IN"]
    assert [(e["source"], e["target"]) for e in mentions] == [
        ("ent:ilse", "c1"),
        ("ent:ilse", "c2"),
        ("ent:lantern works", "c0"),
        ("ent:lantern works", "c1"),
        ("ent:lantern works", "c2"),
    ]
    (relation,) = [e for e in edges if e["type"] == "RELATION"]
    assert relation["id"] == "rel:" + short_hash("ent:ilse", "founded", "ent:lantern works")
    assert relation["predicate"] == "Founded"  # the first statement names the edge
    assert relation["description"] == "Ilse Founded Lantern Works"
    assert relation["source_ids"] == ["c1", "c2"] and relation["weight"] == 2.0
    assert [e["type"] for e in edges] == ["MENTIONED_IN"] * 5 + ["RELATION"]  # relations last
    _tables(graph).validate()


def test_typed_entities_take_their_most_frequent_type():
    graph = TripleAssembler()
    for chunk, kind in (("c0", "Place"), ("c1", "Organization"), ("c2", "Organization")):
        graph.triple(
            chunk,
            "Brinemouth",
            "LOCATED_IN",
            "Estlund",
            rel_type="LOCATED_IN",
            key="LOCATED_IN",
            subject_type=kind,
            object_type="Place",
        )
    nodes = _tables(graph).nodes.set_index("id")
    assert nodes.loc["ent:brinemouth", "label"] == "Organization"
    assert nodes.loc["ent:brinemouth", "type"] == "Organization"
    assert nodes.loc["ent:estlund", "label"] == "Place"
    edges = _tables(graph).edges_of_type("LOCATED_IN")
    assert len(edges) == 1 and edges.iloc[0]["source_ids"] == ("c0", "c1", "c2")


def test_different_keys_between_the_same_ends_are_different_edges():
    graph = TripleAssembler()
    graph.triple("c0", "A", "born in", "B", rel_type="RELATION", key="born in")
    graph.triple("c0", "A", "died in", "B", rel_type="RELATION", key="died in")
    graph.triple("c1", "B", "born in", "A", rel_type="RELATION", key="born in")  # reversed
    relations = _tables(graph).edges_of_type("RELATION")
    assert list(relations["predicate"]) == ["born in", "died in", "born in"]
    assert list(relations["weight"]) == [1.0, 1.0, 1.0]


def test_unusable_triples_add_nothing():
    graph = TripleAssembler()
    graph.triple("c0", "", "moved to", "Varrowmere", rel_type="RELATION", key="moved to")
    graph.triple("c0", "The Lake", "is", "lake", rel_type="RELATION", key="is")  # one entity
    nodes, edges = graph.rows(CHUNKS)
    assert [n["label"] for n in nodes] == ["Chunk"] * 3 and edges == []
