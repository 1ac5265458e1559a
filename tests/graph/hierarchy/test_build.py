"""ace_lab.graph.hierarchy.build: the HiRAG-style build with scripted LLM replies."""

from __future__ import annotations

from ace_lab.graph.hierarchy import build_hierarchical
from ace_lab.llm import LLM
from tests.support.extraction import hierarchy_config, hierarchy_reply
from tests.support.scripted import ScriptedClient


def test_build_has_every_layer_and_provenance(settings, tmp_path, toy_chunks):
    llm = LLM(settings, client=ScriptedClient(hierarchy_reply))
    tables = build_hierarchical(toy_chunks, llm, tmp_path, hierarchy_config(), progress=False)
    labels = tables.nodes["label"].value_counts()
    assert labels["Chunk"] == len(toy_chunks)
    assert labels["Entity"] > 10 and labels["Summary"] >= 2 and labels["Community"] >= 1
    types = set(tables.edges["type"])
    assert {"RELATED", "MENTIONED_IN", "MEMBER_OF", "IN_COMMUNITY"} <= types
    entities = tables.nodes_with_label("Entity")
    assert all(len(ids) >= 1 for ids in entities["source_ids"])
    assert set(tables.nodes_with_label("Summary")["level"]) >= {1}
    assert tables.meta["family"] == "hierarchical"
    assert tables.meta["cost"][0]["calls_per_chunk"] == 1.0
    # rebuilding resumes from the per-chunk records: no extraction call is repeated
    before = sum(c.tag == "build.hirag.extract" for c in llm.ledger.calls)
    build_hierarchical(toy_chunks, llm, tmp_path, hierarchy_config(), progress=False)
    after = sum(c.tag == "build.hirag.extract" for c in llm.ledger.calls)
    assert after == before


def test_malformed_extraction_falls_back_to_no_entities(settings, tmp_path, toy_chunks):
    llm = LLM(settings, client=ScriptedClient(lambda kw: "I cannot do JSON, sorry"))
    tables = build_hierarchical(toy_chunks[:2], llm, tmp_path, hierarchy_config(), progress=False)
    assert set(tables.nodes["label"]) == {"Chunk"}
    assert tables.meta["cost"][0]["fallbacks"] == 2
