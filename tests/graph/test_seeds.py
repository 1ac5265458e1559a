"""Tests for ace_lab.graph.seeds: seed documents of a graph and the seed indexes over them."""

from __future__ import annotations

from pathlib import Path

import pytest

from ace_lab.embed import Embedder, VectorCache
from ace_lab.graph.seeds import (
    STRUCTURAL_EDGE_TYPES,
    SeedIndexes,
    build_seed_indexes,
    entity_text,
    relation_text,
    seed_documents,
)
from ace_lab.graph.tables import GraphTables


def _tiny_graph(with_relations: bool = True) -> GraphTables:
    nodes = [
        {"id": "c1", "label": "Chunk", "name": "Ilse Marrin", "description": "Ilse Marrin was an "
         "inventor who co-founded the Varrowmere Lantern Works in 1889."},
        {"id": "c2", "label": "Chunk", "name": "Sende Observatory", "description": "The Sende "
         "Observatory on Cairn Hill was founded by the astronomer Petra Abernast."},
        {"id": "e1", "label": "Person", "name": "Ilse Marrin", "description": "an inventor"},
        {"id": "e2", "label": "Entity", "name": "Varrowmere Lantern Works", "description": ""},
        {"id": "e3", "label": "Entity", "name": "Petra Abernast",
         "description": "astronomer who founded the Sende Observatory"},
        {"id": "k1", "label": "Community", "name": "Lanterns", "description": "lantern makers"},
    ]  # fmt: skip
    edges = [
        {"id": "r1", "source": "e1", "target": "e2", "type": "RELATED", "predicate": "co-founded"},
        {"id": "r2", "source": "e3", "target": "c2", "type": "RELATED",
         "description": "directed for forty years"},
        {"id": "r3", "source": "e2", "target": "e1", "type": "RELATED", "predicate": "employed",
         "description": "as director"},
        {"id": "m1", "source": "c1", "target": "e1", "type": "MENTIONS"},
    ]  # fmt: skip
    return GraphTables.from_records(nodes, edges if with_relations else [])


def test_seed_documents_texts() -> None:
    docs = seed_documents(_tiny_graph())
    assert docs["passages"][0] == ["c1", "c2"]
    assert docs["passages"][1][0].startswith("Ilse Marrin was an inventor")
    assert docs["entities"] == (
        ["e1", "e2", "e3"],
        [
            "Ilse Marrin: an inventor",
            "Varrowmere Lantern Works",
            "Petra Abernast: astronomer who founded the Sende Observatory",
        ],
    )
    assert docs["relations"] == (
        ["r1", "r2", "r3"],
        [
            "Ilse Marrin co-founded Varrowmere Lantern Works",
            "Petra Abernast directed for forty years Sende Observatory",
            "Varrowmere Lantern Works employed Ilse Marrin: as director",
        ],
    )


def test_seed_indexes_build_search_save_load(
    minilm: Embedder, vector_cache: VectorCache, tmp_path: Path
) -> None:
    seeds = build_seed_indexes(_tiny_graph(), minilm, progress=False, cache=vector_cache)
    assert seeds.passages is not None and seeds.entities is not None
    assert seeds.relations is not None
    assert seeds.passages.ids == ("c1", "c2")
    assert seeds.entities.search("Abernast", k=1)[0].id == "e3"
    assert seeds.relations.search("who founded the lantern company", k=1)[0].id == "r1"

    seeds.save(tmp_path / "seeds")
    loaded = SeedIndexes.load(tmp_path / "seeds", minilm, cache=vector_cache)
    for kind in ("passages", "entities", "relations"):
        before, after = seeds.get(kind), loaded.get(kind)
        assert before is not None and after is not None
        assert after.ids == before.ids
        assert after.search("observatory founder", k=3) == before.search("observatory founder", k=3)

    # A graph without relations: that index is None, and a re-save drops the stale folder.
    bare = build_seed_indexes(
        _tiny_graph(with_relations=False), minilm, progress=False, cache=vector_cache
    )
    assert bare.relations is None
    bare.save(tmp_path / "seeds")
    assert not (tmp_path / "seeds" / "relations").exists()
    assert SeedIndexes.load(tmp_path / "seeds", minilm, cache=vector_cache).relations is None


def test_structural_edges_are_never_relation_seeds() -> None:
    base = _tiny_graph()
    edges = [
        {"id": f"s{i}", "source": "e1", "target": "e2", "type": kind, "predicate": "links"}
        for i, kind in enumerate(STRUCTURAL_EDGE_TYPES)
    ]
    nodes = base.nodes.to_dict("records")
    tables = GraphTables.from_records(nodes, [*base.edges.to_dict("records"), *edges])
    assert seed_documents(tables)["relations"][0] == ["r1", "r2", "r3"]
    assert entity_text("Ilse Marrin", "") == "Ilse Marrin"
    assert relation_text("A", "", "", "B") == "A  B"
    with pytest.raises(KeyError, match="unknown seed kind"):
        SeedIndexes(None, None, None).get("communities")
