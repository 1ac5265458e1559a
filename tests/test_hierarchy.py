"""Hierarchical (HiRAG-style) build with scripted LLM replies: structure, layers, communities."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from ace_lab.data import chunk_passages, load_dataset
from ace_lab.graph.hierarchy import (
    HierarchyConfig,
    bridge_paths,
    build_hierarchical,
    leiden_communities,
)
from ace_lab.llm import LLM
from tests.conftest import ScriptedClient

CONFIG = HierarchyConfig(cluster_size=4, min_layer_size=4, community_min_size=2)


def _reply(kwargs: dict) -> str:
    """Plays the model: capitalised words become entities, neighbours become relations."""
    system = kwargs["messages"][0]["content"]
    user = kwargs["messages"][-1]["content"]
    if "extract a knowledge graph" in system:
        text = user.split("Text:", 1)[1]
        names = list(dict.fromkeys(re.findall(r"\b[A-Z][a-z]{3,}\b", text)))[:6]
        return json.dumps(
            {
                "entities": [[n, "CONCEPT", f"{n} appears in the text."] for n in names],
                "relations": [
                    [a, b, f"{a} relates to {b}.", 5] for a, b in itertools.pairwise(names)
                ],
            }
        )
    if "levels of abstraction" in system:
        first = re.search(r"- ([^:]+):", user).group(1)
        return json.dumps({"name": f"Theme of {first}", "description": "A group."})
    if "communities of a knowledge graph" in system:
        return json.dumps({"title": "A community", "summary": "Members relate.", "rating": 7})
    return "merged description"


@pytest.fixture(scope="module")
def toy_chunks():
    return chunk_passages(load_dataset("toy").passages)


def test_build_has_every_layer_and_provenance(settings, tmp_path, toy_chunks):
    llm = LLM(settings, client=ScriptedClient(_reply))
    tables = build_hierarchical(toy_chunks, llm, tmp_path, CONFIG, progress=False)
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
    build_hierarchical(toy_chunks, llm, tmp_path, CONFIG, progress=False)
    after = sum(c.tag == "build.hirag.extract" for c in llm.ledger.calls)
    assert after == before


def test_malformed_extraction_falls_back_to_no_entities(settings, tmp_path, toy_chunks):
    llm = LLM(settings, client=ScriptedClient(lambda kw: "I cannot do JSON, sorry"))
    tables = build_hierarchical(toy_chunks[:2], llm, tmp_path, CONFIG, progress=False)
    assert set(tables.nodes["label"]) == {"Chunk"}
    assert tables.meta["cost"][0]["fallbacks"] == 2


def test_leiden_is_deterministic_and_separates_cliques():
    ids = [f"a{i}" for i in range(4)] + [f"b{i}" for i in range(4)]
    edges = [(f"a{i}", f"a{j}", 1.0) for i in range(4) for j in range(i + 1, 4)]
    edges += [(f"b{i}", f"b{j}", 1.0) for i in range(4) for j in range(i + 1, 4)]
    edges += [("a0", "b0", 0.1)]
    first = leiden_communities(ids, edges, seed=0)
    assert first == leiden_communities(ids, edges, seed=0)
    assert sorted(map(sorted, first)) == [[f"a{i}" for i in range(4)], [f"b{i}" for i in range(4)]]


def test_bridge_paths_link_entities_of_different_communities(settings, tmp_path, toy_chunks):
    llm = LLM(settings, client=ScriptedClient(_reply))
    tables = build_hierarchical(toy_chunks, llm, tmp_path, CONFIG, progress=False)
    community = dict(
        zip(
            tables.edges_of_type("IN_COMMUNITY")["source"],
            tables.edges_of_type("IN_COMMUNITY")["target"],
            strict=True,
        )
    )
    by_comm: dict[str, str] = {}
    for ent, com in community.items():
        by_comm.setdefault(com, ent)
    assert len(by_comm) >= 2
    a, b = list(by_comm.values())[:2]
    paths = bridge_paths(tables, [a, b], max_hops=10)
    assert paths and paths[0][0] == a and paths[0][-1] == b
