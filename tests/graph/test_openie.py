"""ace_lab.graph.openie: scripted LLM answers, real MiniLM for synonyms."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from ace_lab.data import Chunk
from ace_lab.embed import SentenceTransformerEmbedder, VectorCache
from ace_lab.graph.extract import ChunkRecord
from ace_lab.graph.openie import EXTRACT_FILE, OpenIEConfig, _schemas, build_openie
from ace_lab.graph.tables import GraphTables
from ace_lab.llm import LLM
from tests.support.embedders import OneHotEmbedder
from tests.support.extraction import OPENIE_PROMPTS, openie_reply, prompt_of, title_of
from tests.support.paths import REPO
from tests.support.scripted import ScriptedClient


def _prompt_of(kwargs: dict) -> str:
    return prompt_of(kwargs, OPENIE_PROMPTS)


def _build(
    settings, tmp_path: Path, chunks, script=openie_reply, **kwargs
) -> tuple[GraphTables, ScriptedClient]:
    client = ScriptedClient(script)
    llm = LLM(settings, client=client)
    graph = build_openie(
        chunks,
        llm,
        tmp_path / "run",
        kwargs.pop("config", OpenIEConfig()),
        progress=False,
        embedder=kwargs.pop("embedder", OneHotEmbedder()),
        embed_cache=False,
        **kwargs,
    )
    return graph, client


# ---------------------------------------------------------------------------------- builder


def test_joint_mode_builds_the_graph(settings, tmp_path, first_toy_chunks):
    graph, client = _build(settings, tmp_path, first_toy_chunks, meta={"dataset": "toy"})
    assert len(client.requests) == 3  # one call per chunk

    nodes = graph.nodes.set_index("id")
    assert set(graph.nodes["label"]) == {"Chunk", "Entity"}
    chunks = graph.nodes_with_label("Chunk")
    assert list(chunks["id"]) == ["toy-01", "toy-02", "toy-03"]
    assert chunks.set_index("id").loc["toy-01", "name"] == "Ilse Marrin"
    assert chunks.set_index("id").loc["toy-01", "description"] == first_toy_chunks[0].text

    # "The Varrowmere Lantern Works" and "Varrowmere Lantern Works" are one phrase node
    lantern = nodes.loc["ent:varrowmere lantern works"]
    assert lantern["name"] == "Varrowmere Lantern Works"
    assert lantern["source_ids"] == ("toy-01", "toy-03")
    assert nodes.loc["ent:ilse marrin", "source_ids"] == ("toy-01", "toy-02")
    assert "ent:varrowmere" not in nodes.index  # only in the triple with an empty subject

    relations = graph.edges_of_type("RELATION")
    assert set(graph.edges["type"]) == {"RELATION", "MENTIONED_IN"}
    assert len(relations) == 4
    born = relations[relations["predicate"] == "born in"].iloc[0]
    assert (born["source"], born["target"]) == ("ent:ilse marrin", "ent:kesterholm")
    assert born["source_ids"] == ("toy-01",)
    assert "demonstrated the first one on" in set(relations["predicate"])

    mentions = graph.edges_of_type("MENTIONED_IN")
    pairs = set(zip(mentions["source"], mentions["target"], strict=True))
    assert ("ent:ilse marrin", "toy-02") in pairs and ("ent:1889", "toy-03") in pairs
    assert all(nodes.loc[t, "label"] == "Chunk" for t in mentions["target"])
    assert all(len(ids) > 0 for ids in graph.edges["source_ids"])

    assert graph.meta["family"] == "openie" and graph.meta["dataset"] == "toy"
    assert graph.meta["cost"]["calls_per_chunk"] == 1.0
    assert graph.meta["mode"] == "joint"
    graph.save(tmp_path / "graph")
    assert len(GraphTables.load(tmp_path / "graph").nodes) == len(graph.nodes)


def test_ner_then_triples_passes_the_entities(settings, tmp_path, first_toy_chunks):
    config = OpenIEConfig(mode="ner_then_triples")
    graph, client = _build(settings, tmp_path, first_toy_chunks, config=config)
    prompts = [_prompt_of(r) for r in client.requests]
    assert prompts.count("openie_ner") == 3 and prompts.count("openie_triples") == 3
    triple_request = next(
        r
        for r in client.requests
        if _prompt_of(r) == "openie_triples" and title_of(r) == "Tidal lantern"
    )
    assert (
        '["Tidal lantern", "Ilse Marrin", "Lake Varrow"]'
        in triple_request["messages"][-1]["content"]
    )
    assert graph.meta["cost"]["calls_per_chunk"] == 2.0
    assert len(graph.edges_of_type("RELATION")) == 4


def test_schema_is_bounded(settings, tmp_path, first_toy_chunks):
    config = OpenIEConfig(max_entities=5, max_triples=4)
    _, client = _build(settings, tmp_path, first_toy_chunks[:1], config=config)
    schema = client.requests[0]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["named_entities"]["maxItems"] == 5
    assert schema["properties"]["triples"]["maxItems"] == 4
    # string bounds stay out of the grammar (they make llama.cpp sampling crawl) ...
    assert "maxLength" not in schema["properties"]["triples"]["items"]["prefixItems"][1]
    # ... and over-long output is truncated on validation, not rejected
    joint = _schemas(config)["joint"]
    value = joint.model_validate({"named_entities": ["x"] * 9, "triples": [["a", "b", "c"]] * 9})
    assert len(value.named_entities) == 5 and len(value.triples) == 4


def test_malformed_json_falls_back_to_empty(settings, tmp_path, first_toy_chunks):
    graph, client = _build(settings, tmp_path, first_toy_chunks, script=lambda kw: "not json {")
    assert len(client.requests) == 3 * OpenIEConfig().attempts
    assert set(graph.nodes["label"]) == {"Chunk"} and graph.edges.empty
    assert graph.meta["cost"]["fallbacks"] == 3


def test_resume_only_calls_for_remaining_chunks(settings, tmp_path, first_toy_chunks):
    done = ChunkRecord(
        chunk_id="toy-01",
        result={"named_entities": ["Kesterholm"], "triples": [], "mode": "joint"},
        llm_calls=1,
        cache_hits=0,
        prompt_tokens=10,
        completion_tokens=5,
        fallbacks=0,
    )
    run = tmp_path / "run"
    run.mkdir()
    (run / EXTRACT_FILE).write_text(json.dumps(done.__dict__) + "\n")
    graph, client = _build(settings, tmp_path, first_toy_chunks)
    assert sorted(title_of(r) for r in client.requests) == [
        "Tidal lantern",
        "Varrowmere Lantern Works",
    ]
    ids = set(graph.nodes["id"])
    assert "ent:kesterholm" in ids and "ent:1889" in ids
    assert graph.meta["cost"]["llm_calls"] == 3  # the stored chunk's cost is kept


def test_changing_mode_on_a_run_dir_is_refused(settings, tmp_path, first_toy_chunks):
    _build(settings, tmp_path, first_toy_chunks[:1])
    with pytest.raises(ValueError, match="another mode"):
        _build(
            settings, tmp_path, first_toy_chunks[:1], config=OpenIEConfig(mode="ner_then_triples")
        )


def test_synonym_edges_with_minilm(settings, tmp_path):
    chunks = [
        Chunk("c1", "c1", "Politics", "Barack Obama met the press.", 0),
        Chunk("c2", "c2", "Lists", "Obama, Barack: president. A banana was eaten.", 0),
    ]
    entities = {
        "Politics": ["Barack Obama", "press"],
        "Lists": ["Obama, Barack", "banana"],
    }

    def script(kwargs: dict) -> str:
        return json.dumps({"named_entities": entities[title_of(kwargs)], "triples": []})

    cache = VectorCache(tmp_path / "vectors.sqlite")
    client = ScriptedClient(script)
    graph = build_openie(
        chunks,
        LLM(settings, client=client),
        tmp_path / "run",
        OpenIEConfig(synonym_k=3),
        progress=False,
        embedder=SentenceTransformerEmbedder(),
        embed_cache=cache,
    )
    synonyms = graph.edges_of_type("SYNONYM")
    assert len(synonyms) == 1
    edge = synonyms.iloc[0]
    assert {edge["source"], edge["target"]} == {"ent:barack obama", "ent:obama, barack"}
    assert edge["weight"] >= 0.8
    assert edge["source_ids"] == ("c1", "c2")
    assert graph.meta["synonym_edges"] == 1
    assert cache.count() == 4  # names were embedded through the given cache


# ------------------------------------------------------------------------------ integration


@pytest.mark.integration
def test_real_smoke_model_builds_a_valid_graph(settings, tmp_path, first_toy_chunks):
    from ace_lab.llm import server

    llm = LLM(settings)
    config = OpenIEConfig(max_tokens=32, attempts=1, max_entities=4, max_triples=3)
    try:
        graph = build_openie(
            first_toy_chunks,
            llm,
            tmp_path / "run",
            config,
            progress=False,
            embedder=OneHotEmbedder(),
            embed_cache=False,
        )
    finally:
        server.stop(settings)
    graph.validate()
    assert set(graph.nodes_with_label("Chunk")["id"]) == {c.id for c in first_toy_chunks}
    assert graph.meta["cost"]["chunks"] == 3


# ------------------------------------------------------------------------- committed graphs
COMMITTED = sorted((REPO / "data" / "graphs").glob("*/openie/*/tables"))


@pytest.mark.parametrize("tables_dir", COMMITTED, ids=lambda p: p.parents[2].name)
def test_committed_graph_rebuilds_from_its_records(settings, tmp_path, tables_dir):
    """The recorded extractions assemble into the committed tables, with no model call.

    Synonyms are left out (``synonym_k=0``): they depend only on the embedder, not on assembly.
    """
    committed = GraphTables.load(tables_dir)
    chunks = [
        Chunk(r.id, r.id, r.name, r.description, 0, 0)
        for r in committed.nodes_with_label("Chunk").itertuples()
    ]
    run = tmp_path / "run"
    run.mkdir()
    (run / EXTRACT_FILE).write_bytes((tables_dir.parent / EXTRACT_FILE).read_bytes())
    config = replace(OpenIEConfig(**committed.meta["config"]), synonym_k=0)
    graph, client = _build(
        settings, tmp_path, chunks, script=lambda kw: pytest.fail("model called"), config=config
    )
    assert client.requests == []
    assert graph.nodes.equals(committed.nodes)
    edges = committed.edges[committed.edges["type"] != "SYNONYM"].reset_index(drop=True)
    assert graph.edges.equals(edges)


# ------------------------------------------------------------------ regressions (issue 13)
def test_hostile_output_falls_back_instead_of_aborting_the_build(
    settings, tmp_path, first_toy_chunks
):
    """Deep nesting raised RecursionError out of the whole build; a lone surrogate among the
    named entities crashed the triples prompt's cache key (and the record's append)."""
    deep = '{"named_entities": ' + "[" * 3000 + "]" * 3000 + ', "triples": []}'
    surrogate = '{"named_entities": ["Ilse \\ud800 Marrin"]}'

    def reply(kwargs):
        if _prompt_of(kwargs) == "openie_ner":
            return surrogate if title_of(kwargs) == "Tidal lantern" else deep
        return openie_reply(kwargs)

    config = OpenIEConfig(mode="ner_then_triples")
    graph, _ = _build(settings, tmp_path, first_toy_chunks, script=reply, config=config)
    assert graph.meta["cost"]["fallbacks"] == 3  # every NER call fell back to no entities
    for line in (tmp_path / "run" / EXTRACT_FILE).read_text(encoding="utf-8").splitlines():
        assert "\\ud800" not in line and json.loads(line)["result"]["named_entities"] == []
