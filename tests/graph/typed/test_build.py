"""ace_lab.graph.typed.build: the whole typed build with a scripted model, and resuming it."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from ace_lab.data import Chunk
from ace_lab.graph.tables import GraphTables
from ace_lab.graph.typed import EXTRACT_FILE, REFLECT_FILE, SCHEMA_FILE, TypedConfig, build_typed
from ace_lab.llm import LLM
from tests.support.extraction import (
    TYPED_NODE_TYPES,
    TYPED_RELATION_TYPES,
    title_of,
    typed_prompt_of,
    typed_prompts,
)
from tests.support.graphs import build_typed_scripted
from tests.support.paths import REPO


def test_builds_typed_graph(settings, tmp_path, first_toy_chunks):
    graph, client = build_typed_scripted(
        settings, tmp_path / "run", first_toy_chunks, meta={"dataset": "toy"}
    )
    # schema + one extraction per chunk + one reflection (only the suspicious chunk)
    assert typed_prompts(client).count("typed_schema") == 1
    assert typed_prompts(client).count("typed_extract") == 3
    reflected = [title_of(r) for r in client.requests if typed_prompt_of(r) == "typed_reflect"]
    assert reflected == ["Tidal lantern"]

    nodes = graph.nodes.set_index("id")
    assert set(graph.nodes["label"]) == {"Chunk", "Person", "Place", "Organization"}
    assert nodes.loc["ent:ilse marrin", "label"] == "Person"
    assert nodes.loc["ent:varrowmere lantern works", "source_ids"] == ("toy-01", "toy-03")
    assert "ent:atlantis" not in nodes.index  # dropped by reflection
    assert "ent:great flood of 1897" not in nodes.index  # replaced by its repair
    assert nodes.loc["ent:tidal lantern", "label"] == "Organization"
    assert list(graph.nodes_with_label("Chunk")["id"]) == ["toy-01", "toy-02", "toy-03"]

    edges = graph.edges
    assert set(edges["type"]) == {
        "BORN_IN",
        "CO_FOUNDED",
        "DEMONSTRATED_AT",
        "LOCATED_IN",
        "MENTIONED_IN",
    }
    born = graph.edges_of_type("BORN_IN")
    assert len(born) == 1 and born.iloc[0]["description"] == "Ilse Marrin BORN_IN Kesterholm"
    assert born.iloc[0]["source_ids"] == ("toy-01",)
    located = graph.edges_of_type("LOCATED_IN").set_index("source")
    assert located.loc["ent:tidal lantern", "target"] == "ent:estlund maritime museum"
    assert located.loc["ent:tidal lantern", "source_ids"] == ("toy-02",)
    mentions = graph.edges_of_type("MENTIONED_IN")
    assert ("ent:ilse marrin", "toy-02") in set(
        zip(mentions["source"], mentions["target"], strict=True)
    )
    assert all(len(ids) > 0 for ids in edges["source_ids"])

    meta = graph.meta
    assert meta["family"] == "typed" and meta["dataset"] == "toy"
    assert meta["schema"]["node_types"] == TYPED_NODE_TYPES
    assert meta["schema"]["relation_types"] == TYPED_RELATION_TYPES
    assert meta["reflection"] == {
        "mode": "suspicious",
        "chunks_reflected": 1,
        "kept": 4,
        "dropped": 1,
        "repaired": 1,
        "fallbacks": 0,
    }
    assert meta["cost"]["extract"]["calls_per_chunk"] == 1.0
    assert meta["cost"]["reflect"]["llm_calls"] == 1
    assert meta["cost"]["schema"]["llm_calls"] == 1
    assert meta["cost"]["calls_per_chunk"] == round(5 / 3, 3)
    saved = json.loads((tmp_path / "run" / SCHEMA_FILE).read_text())
    assert saved["node_types"] == TYPED_NODE_TYPES and not saved["fallback"]
    assert saved["sample_chunk_ids"] == ["toy-01", "toy-02", "toy-03"]


def test_resume_only_calls_for_remaining_chunks(settings, tmp_path, first_toy_chunks):
    no_cache = replace(settings, llm=replace(settings.llm, cache=False))
    build_typed_scripted(no_cache, tmp_path / "run", first_toy_chunks[:2])
    graph, client = build_typed_scripted(no_cache, tmp_path / "run", first_toy_chunks)
    assert typed_prompts(client) == ["typed_extract"]  # chunk 3 is grounded: no reflection
    assert title_of(client.requests[0]) == "Varrowmere Lantern Works"
    assert "ent:brinemouth" in set(graph.nodes["id"])
    with pytest.raises(ValueError, match="another reflection"):
        build_typed_scripted(
            no_cache, tmp_path / "run", first_toy_chunks, config=TypedConfig(reflection="all")
        )


@pytest.mark.integration
def test_real_smoke_model_builds_a_valid_graph(settings, tmp_path, first_toy_chunks):
    from ace_lab.llm import server

    config = TypedConfig(
        attempts=1,
        max_triples=3,
        schema_sample_chars=200,
        schema_max_tokens=32,
        extract_max_tokens=32,
        reflect_max_tokens=32,
    )
    try:
        graph = build_typed(
            first_toy_chunks, LLM(settings), tmp_path / "run", config, progress=False
        )
    finally:
        server.stop(settings)
    graph.validate()
    assert set(graph.nodes_with_label("Chunk")["id"]) == {c.id for c in first_toy_chunks}
    assert graph.meta["family"] == "typed" and graph.meta["schema"]["node_types"]


COMMITTED = sorted((REPO / "data" / "graphs").glob("*/typed/*/tables"))


@pytest.mark.parametrize("tables_dir", COMMITTED, ids=lambda p: p.parents[2].name)
def test_committed_graph_rebuilds_from_its_records(settings, tmp_path, tables_dir):
    """The recorded schema and extractions rebuild the committed tables with no model call."""
    committed = GraphTables.load(tables_dir)
    chunks = [
        Chunk(r.id, r.id, r.name, r.description, 0, 0)
        for r in committed.nodes_with_label("Chunk").itertuples()
    ]
    run = tmp_path / "run"
    run.mkdir()
    for name in (SCHEMA_FILE, EXTRACT_FILE, REFLECT_FILE):
        if (tables_dir.parent / name).is_file():
            (run / name).write_bytes((tables_dir.parent / name).read_bytes())
    graph, client = build_typed_scripted(
        settings,
        run,
        chunks,
        script=lambda kw: pytest.fail("model called"),
        config=TypedConfig(**committed.meta["config"]),
    )
    assert client.requests == []
    assert graph.nodes.equals(committed.nodes) and graph.edges.equals(committed.edges)
    assert graph.meta["reflection"] == committed.meta["reflection"]
