"""ace_lab.graph.typed: schema induction, enum-constrained extraction, reflection (scripted LLM)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from ace_lab.data import Chunk, chunk_passages, load_dataset
from ace_lab.graph.tables import GraphTables
from ace_lab.graph.typed import (
    FALLBACK_NODE_TYPES,
    REFLECT_FILE,
    SCHEMA_FILE,
    TypedConfig,
    apply_verdicts,
    build_typed,
    pascal_case,
    sample_chunks,
    upper_snake,
)
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt
from tests.conftest import ScriptedClient

PROPOSAL = {
    "node_types": ["person", "Organization", "place", "Chunk", "sports team", "PERSON"],
    "relation_types": ["born in", "co-founded", "locatedIn", "MENTIONED_IN", "demonstrated at"],
}
NODE_TYPES = ["Person", "Organization", "Place", "SportsTeam"]
RELATION_TYPES = ["BORN_IN", "CO_FOUNDED", "LOCATED_IN", "DEMONSTRATED_AT"]


def _t(s: str, st: str, r: str, o: str, ot: str) -> dict[str, str]:
    return {"subject": s, "subject_type": st, "relation": r, "object": o, "object_type": ot}


# What the scripted model extracts from the first three toy chunks, by title. Only the tidal
# lantern chunk has triples whose ends are not both in its text ("Atlantis", "Great Flood").
EXTRACTIONS = {
    "Ilse Marrin": [
        _t("Ilse Marrin", "Person", "BORN_IN", "Kesterholm", "Place"),
        _t("Ilse Marrin", "Person", "CO_FOUNDED", "the Varrowmere Lantern Works", "Organization"),
    ],
    "Tidal lantern": [
        _t("Ilse Marrin", "Person", "DEMONSTRATED_AT", "Lake Varrow", "Place"),
        _t("Ilse Marrin", "Person", "BORN_IN", "Atlantis", "Place"),
        _t("Great Flood of 1897", "Place", "LOCATED_IN", "Estlund Maritime Museum", "Place"),
    ],
    "Varrowmere Lantern Works": [
        _t("Varrowmere Lantern Works", "Organization", "LOCATED_IN", "Brinemouth", "Place"),
    ],
}
REPAIR = _t("Tidal lantern", "Organization", "LOCATED_IN", "Estlund Maritime Museum", "Place")


@pytest.fixture(scope="module")
def toy_chunks() -> list[Chunk]:
    return chunk_passages(load_dataset("toy").passages)[:3]


def _prompt_of(kwargs: dict) -> str:
    system = kwargs["messages"][0]["content"]
    for name in ("typed_schema", "typed_extract", "typed_reflect"):
        if system == load_prompt(name).system:
            return name
    raise AssertionError(f"unexpected prompt: {system[:80]}")


def _title_of(kwargs: dict) -> str:
    return kwargs["messages"][-1]["content"].split("Title: ", 1)[1].split("\n", 1)[0]


def scripted(kwargs: dict) -> str:
    prompt = _prompt_of(kwargs)
    if prompt == "typed_schema":
        return json.dumps(PROPOSAL)
    title = _title_of(kwargs)
    if prompt == "typed_extract":
        return json.dumps({"triples": EXTRACTIONS[title]})
    if title == "Tidal lantern":
        return json.dumps({"verdicts": ["keep", "drop", "repair"], "repairs": [REPAIR | {"n": 3}]})
    n = len(EXTRACTIONS[title])
    return json.dumps({"verdicts": ["keep"] * n, "repairs": []})


def _build(
    settings, run_dir: Path, chunks, script=scripted, config: TypedConfig | None = None, **kw
) -> tuple[GraphTables, ScriptedClient]:
    client = ScriptedClient(script)
    graph = build_typed(
        chunks, LLM(settings, client=client), run_dir, config or TypedConfig(), progress=False, **kw
    )
    return graph, client


def _prompts(client: ScriptedClient) -> list[str]:
    return [_prompt_of(r) for r in client.requests]


# ------------------------------------------------------------------------------- unit parts


@pytest.mark.parametrize(
    ("raw", "label"),
    [("person", "Person"), ("sports team", "SportsTeam"), ("SportsTeam", "SportsTeam"),
     ("ORGANIZATION", "Organization"), ("3d model", ""), ("", "")],
)  # fmt: skip
def test_pascal_case(raw: str, label: str) -> None:
    assert pascal_case(raw) == label


@pytest.mark.parametrize(
    ("raw", "rel"),
    [("born in", "BORN_IN"), ("worksFor", "WORKS_FOR"), ("co-founded", "CO_FOUNDED"),
     ("LOCATED_IN", "LOCATED_IN"), ("1st", "")],
)  # fmt: skip
def test_upper_snake(raw: str, rel: str) -> None:
    assert upper_snake(raw) == rel


def test_sample_is_spread_evenly() -> None:
    chunks = [Chunk(f"c{i}", f"c{i}", "t", "x", 0) for i in range(16)]
    assert [c.id for c in sample_chunks(chunks, 4)] == ["c2", "c6", "c10", "c14"]
    assert len(sample_chunks(chunks[:3], 8)) == 3


def test_apply_verdicts() -> None:
    triples = EXTRACTIONS["Tidal lantern"]
    kept, counts = apply_verdicts(triples, ["drop", "repair"], [])
    # a repair without a corrected triple drops; a missing verdict keeps
    assert kept == [triples[2]] and dict(counts) == {"kept": 1, "dropped": 2, "repaired": 0}
    kept, counts = apply_verdicts(triples, ["keep", "keep", "repair"], [REPAIR | {"n": 3}])
    assert kept[2] == REPAIR and counts["repaired"] == 1


# ---------------------------------------------------------------------------------- builder


def test_builds_typed_graph(settings, tmp_path, toy_chunks):
    graph, client = _build(settings, tmp_path / "run", toy_chunks, meta={"dataset": "toy"})
    # schema + one extraction per chunk + one reflection (only the suspicious chunk)
    assert _prompts(client).count("typed_schema") == 1
    assert _prompts(client).count("typed_extract") == 3
    reflected = [_title_of(r) for r in client.requests if _prompt_of(r) == "typed_reflect"]
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
        "BORN_IN", "CO_FOUNDED", "DEMONSTRATED_AT", "LOCATED_IN", "MENTIONED_IN"
    }  # fmt: skip
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
    assert meta["schema"]["node_types"] == NODE_TYPES
    assert meta["schema"]["relation_types"] == RELATION_TYPES
    assert meta["reflection"] == {
        "mode": "suspicious", "chunks_reflected": 1, "kept": 4, "dropped": 1, "repaired": 1,
        "fallbacks": 0,
    }  # fmt: skip
    assert meta["cost"]["extract"]["calls_per_chunk"] == 1.0
    assert meta["cost"]["reflect"]["llm_calls"] == 1
    assert meta["cost"]["schema"]["llm_calls"] == 1
    assert meta["cost"]["calls_per_chunk"] == round(5 / 3, 3)
    saved = json.loads((tmp_path / "run" / SCHEMA_FILE).read_text())
    assert saved["node_types"] == NODE_TYPES and not saved["fallback"]
    assert saved["sample_chunk_ids"] == ["toy-01", "toy-02", "toy-03"]


def test_enums_reach_the_server(settings, tmp_path, toy_chunks):
    _, client = _build(settings, tmp_path / "run", toy_chunks)
    extract = next(r for r in client.requests if _prompt_of(r) == "typed_extract")
    schema = extract["response_format"]["json_schema"]["schema"]
    triple = schema["$defs"]["TypedTriple"]["properties"]
    assert triple["subject_type"]["enum"] == NODE_TYPES
    assert triple["object_type"]["enum"] == NODE_TYPES
    assert triple["relation"]["enum"] == RELATION_TYPES
    assert schema["properties"]["triples"]["maxItems"] == TypedConfig().max_triples
    assert (
        "Entity types: Person, Organization, Place, SportsTeam"
        in extract["messages"][-1]["content"]
    )

    reflect = next(r for r in client.requests if _prompt_of(r) == "typed_reflect")
    schema = reflect["response_format"]["json_schema"]["schema"]
    verdicts = schema["properties"]["verdicts"]
    assert verdicts["minItems"] == verdicts["maxItems"] == 3
    assert verdicts["items"]["enum"] == ["keep", "drop", "repair"]
    assert schema["$defs"]["Repair"]["properties"]["relation"]["enum"] == RELATION_TYPES
    assert "2. Ilse Marrin (Person) BORN_IN Atlantis (Place)" in reflect["messages"][-1]["content"]


@pytest.mark.parametrize(("mode", "reflections"), [("all", 3), ("off", 0)])
def test_reflection_modes(settings, tmp_path, toy_chunks, mode, reflections):
    graph, client = _build(
        settings, tmp_path / "run", toy_chunks, config=TypedConfig(reflection=mode)
    )
    assert _prompts(client).count("typed_reflect") == reflections
    ids = set(graph.nodes["id"])
    assert ("ent:atlantis" in ids) == (mode == "off")
    assert graph.meta["reflection"]["mode"] == mode
    assert (tmp_path / "run" / REFLECT_FILE).is_file() == (mode != "off")


def test_schema_fallback_and_reuse(settings, tmp_path, toy_chunks):
    def garbage_schema(kwargs: dict) -> str:
        return "no schema here" if _prompt_of(kwargs) == "typed_schema" else scripted(kwargs)

    graph, client = _build(settings, tmp_path / "run", toy_chunks, script=garbage_schema)
    assert graph.meta["schema"]["fallback"]
    assert tuple(graph.meta["schema"]["node_types"]) == FALLBACK_NODE_TYPES
    extract = next(r for r in client.requests if _prompt_of(r) == "typed_extract")
    enum = extract["response_format"]["json_schema"]["schema"]["$defs"]["TypedTriple"]
    assert tuple(enum["properties"]["subject_type"]["enum"]) == FALLBACK_NODE_TYPES

    # a restart reuses the saved schema (no schema call) and every finished chunk
    no_cache = replace(settings, llm=replace(settings.llm, cache=False))
    again, client = _build(no_cache, tmp_path / "run", toy_chunks)
    assert client.requests == []
    assert again.meta["schema"] == graph.meta["schema"]


def test_resume_only_calls_for_remaining_chunks(settings, tmp_path, toy_chunks):
    no_cache = replace(settings, llm=replace(settings.llm, cache=False))
    _build(no_cache, tmp_path / "run", toy_chunks[:2])
    graph, client = _build(no_cache, tmp_path / "run", toy_chunks)
    assert _prompts(client) == ["typed_extract"]  # chunk 3 is grounded: no reflection
    assert _title_of(client.requests[0]) == "Varrowmere Lantern Works"
    assert "ent:brinemouth" in set(graph.nodes["id"])
    with pytest.raises(ValueError, match="another reflection"):
        _build(no_cache, tmp_path / "run", toy_chunks, config=TypedConfig(reflection="all"))


def test_malformed_extraction_falls_back_to_empty(settings, tmp_path, toy_chunks):
    def broken(kwargs: dict) -> str:
        return scripted(kwargs) if _prompt_of(kwargs) == "typed_schema" else '{"triples": [{'

    graph, client = _build(settings, tmp_path / "run", toy_chunks, script=broken)
    assert _prompts(client).count("typed_extract") == 3 * TypedConfig().attempts
    assert "typed_reflect" not in _prompts(client)
    assert set(graph.nodes["label"]) == {"Chunk"} and graph.edges.empty
    assert graph.meta["cost"]["extract"]["fallbacks"] == 3


def test_unreadable_reflection_keeps_the_extraction(settings, tmp_path, toy_chunks):
    def broken(kwargs: dict) -> str:
        return "?" if _prompt_of(kwargs) == "typed_reflect" else scripted(kwargs)

    graph, _ = _build(settings, tmp_path / "run", toy_chunks, script=broken)
    assert "ent:atlantis" in set(graph.nodes["id"])
    assert graph.meta["reflection"]["fallbacks"] == 1
    assert graph.meta["reflection"]["dropped"] == 0


# ------------------------------------------------------------------------------ integration


@pytest.mark.integration
def test_real_smoke_model_builds_a_valid_graph(settings, tmp_path, toy_chunks):
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
        graph = build_typed(toy_chunks, LLM(settings), tmp_path / "run", config, progress=False)
    finally:
        server.stop(settings)
    graph.validate()
    assert set(graph.nodes_with_label("Chunk")["id"]) == {c.id for c in toy_chunks}
    assert graph.meta["family"] == "typed" and graph.meta["schema"]["node_types"]
