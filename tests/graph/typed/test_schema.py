"""ace_lab.graph.typed.schema: Cypher-safe type names, the corpus sample, the saved schema."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ace_lab.data import Chunk
from ace_lab.graph.typed import FALLBACK_NODE_TYPES, pascal_case, sample_chunks, upper_snake
from tests.support.extraction import typed_prompt_of, typed_reply
from tests.support.graphs import build_typed_scripted


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("person", "Person"),
        ("sports team", "SportsTeam"),
        ("SportsTeam", "SportsTeam"),
        ("ORGANIZATION", "Organization"),
        ("3d model", ""),
        ("", ""),
    ],
)
def test_pascal_case(raw: str, label: str) -> None:
    assert pascal_case(raw) == label


@pytest.mark.parametrize(
    ("raw", "rel"),
    [
        ("born in", "BORN_IN"),
        ("worksFor", "WORKS_FOR"),
        ("co-founded", "CO_FOUNDED"),
        ("LOCATED_IN", "LOCATED_IN"),
        ("1st", ""),
    ],
)
def test_upper_snake(raw: str, rel: str) -> None:
    assert upper_snake(raw) == rel


def test_sample_is_spread_evenly() -> None:
    chunks = [Chunk(f"c{i}", f"c{i}", "t", "x", 0) for i in range(16)]
    assert [c.id for c in sample_chunks(chunks, 4)] == ["c2", "c6", "c10", "c14"]
    assert len(sample_chunks(chunks[:3], 8)) == 3


def test_schema_fallback_and_reuse(settings, tmp_path, first_toy_chunks):
    def garbage_schema(kwargs: dict) -> str:
        return (
            "no schema here" if typed_prompt_of(kwargs) == "typed_schema" else typed_reply(kwargs)
        )

    graph, client = build_typed_scripted(
        settings, tmp_path / "run", first_toy_chunks, script=garbage_schema
    )
    assert graph.meta["schema"]["fallback"]
    assert tuple(graph.meta["schema"]["node_types"]) == FALLBACK_NODE_TYPES
    extract = next(r for r in client.requests if typed_prompt_of(r) == "typed_extract")
    enum = extract["response_format"]["json_schema"]["schema"]["$defs"]["TypedTriple"]
    assert tuple(enum["properties"]["subject_type"]["enum"]) == FALLBACK_NODE_TYPES

    # a restart reuses the saved schema (no schema call) and every finished chunk
    no_cache = replace(settings, llm=replace(settings.llm, cache=False))
    again, client = build_typed_scripted(no_cache, tmp_path / "run", first_toy_chunks)
    assert client.requests == []
    assert again.meta["schema"] == graph.meta["schema"]
