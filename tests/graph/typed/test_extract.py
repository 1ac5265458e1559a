"""ace_lab.graph.typed.extract: one extraction per chunk; unusable output extracts nothing."""

from __future__ import annotations

from ace_lab.graph.typed import TypedConfig
from tests.support.extraction import typed_prompt_of, typed_prompts, typed_reply
from tests.support.graphs import build_typed_scripted


def test_malformed_extraction_falls_back_to_empty(settings, tmp_path, first_toy_chunks):
    def broken(kwargs: dict) -> str:
        return (
            typed_reply(kwargs) if typed_prompt_of(kwargs) == "typed_schema" else '{"triples": [{'
        )

    graph, client = build_typed_scripted(
        settings, tmp_path / "run", first_toy_chunks, script=broken
    )
    assert typed_prompts(client).count("typed_extract") == 3 * TypedConfig().attempts
    assert "typed_reflect" not in typed_prompts(client)
    assert set(graph.nodes["label"]) == {"Chunk"} and graph.edges.empty
    assert graph.meta["cost"]["extract"]["fallbacks"] == 3
