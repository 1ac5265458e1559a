"""ace_lab.retrieval.paths: bridge paths between entities of different communities."""

from __future__ import annotations

from ace_lab.graph.hierarchy import build_hierarchical
from ace_lab.llm import LLM
from ace_lab.retrieval import bridge_paths
from tests.support.extraction import hierarchy_config, hierarchy_reply
from tests.support.scripted import ScriptedClient


def test_bridge_paths_link_entities_of_different_communities(settings, tmp_path, toy_chunks):
    llm = LLM(settings, client=ScriptedClient(hierarchy_reply))
    tables = build_hierarchical(toy_chunks, llm, tmp_path, hierarchy_config(), progress=False)
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


def test_bridge_paths_over_a_kept_index_equal_a_fresh_build(settings, tmp_path, toy_chunks):
    from itertools import combinations

    from ace_lab.retrieval.paths import bridge_index

    llm = LLM(settings, client=ScriptedClient(hierarchy_reply))
    tables = build_hierarchical(toy_chunks, llm, tmp_path, hierarchy_config(), progress=False)
    index = bridge_index(tables)
    entities = [i for i in tables.nodes["id"] if i in index[0]][:8]
    for pair in combinations(entities, 2):
        assert bridge_paths(tables, pair, index=index) == bridge_paths(tables, pair)
    assert any(bridge_paths(tables, entities, max_pairs=20, max_hops=10, index=index))
