"""What part of a graph the views show: neighbourhoods, hierarchy slices, most connected
entities (structural edges never count), one entity per community; and their views."""

from __future__ import annotations

from ace_lab import viz
from ace_lab.graph.seeds import STRUCTURAL_EDGE_TYPES
from ace_lab.graph.tables import GraphTables


def _records() -> tuple[list[dict], list[dict]]:
    nodes = [{"id": f"ent:{i}", "name": f"E{i}", "source_ids": ["c0"]} for i in range(6)]
    nodes += [
        {"id": "sum:1:0", "label": "Summary", "name": "Theme", "level": 1},
        {"id": "c0", "label": "Chunk", "name": "Doc", "description": "text"},
    ]
    edges = [
        {"id": f"r{i}", "source": f"ent:{i}", "target": f"ent:{i + 1}", "type": "RELATED"}
        for i in range(5)
    ]
    edges += [
        {"id": f"m{i}", "source": f"ent:{i}", "target": "sum:1:0", "type": "MEMBER_OF"}
        for i in range(3)
    ]
    return nodes, edges


def _small_tables() -> GraphTables:
    return GraphTables.from_records(*_records())


def _tables() -> GraphTables:
    """``_small_tables`` plus structural edges (synonyms, mentions, communities) that would
    make ent:0 and c0 the "most connected" nodes if they counted."""
    nodes, edges = _records()
    nodes += [{"id": f"com:{i}", "label": "Community", "name": f"C{i}"} for i in range(2)]
    edges += [
        {"id": f"s{i}", "source": "ent:0", "target": f"ent:{i}", "type": "SYNONYM"}
        for i in range(2, 6)
    ]
    edges += [
        {"id": f"t{i}", "source": f"ent:{i}", "target": "c0", "type": "MENTIONED_IN"}
        for i in range(6)
    ]
    edges += [
        {
            "id": f"c{i}",
            "source": f"ent:{i}",
            "target": f"com:{int(i >= 3)}",
            "type": "IN_COMMUNITY",
        }
        for i in range(6)
    ]
    return GraphTables.from_records(nodes, edges)


def test_neighbourhood_respects_hops_and_cap():
    tables = _small_tables()
    nodes, edges = viz.neighbourhood(tables, "ent:0", hops=1)
    assert set(nodes["id"]) == {"ent:0", "ent:1", "sum:1:0"}
    assert set(edges["source"]) | set(edges["target"]) <= set(nodes["id"])
    nodes, _ = viz.neighbourhood(tables, "ent:0", hops=5, max_nodes=3)
    assert len(nodes) == 3
    _, edges = viz.neighbourhood(_tables(), "ent:0", hops=1, edge_types=("RELATED",))
    assert set(edges["type"]) == {"RELATED"}


def test_hierarchy_subgraph_keeps_summaries_and_members():
    nodes, edges = viz.hierarchy_subgraph(_small_tables())
    assert "sum:1:0" in set(nodes["id"]) and len(edges) == 3
    nodes, edges = viz.hierarchy_subgraph(_small_tables(), max_members=2)
    assert len(edges) == 2 and len(nodes) == 3


def test_relation_degree_ignores_every_structural_edge_type():
    tables = _tables()
    relations = viz.relation_edges(tables)
    assert not set(relations["type"]) & set(STRUCTURAL_EDGE_TYPES)
    degree = viz.relation_degree(tables)
    assert degree.to_dict() == {
        "ent:1": 2,
        "ent:2": 2,
        "ent:3": 2,
        "ent:4": 2,
        "ent:0": 1,
        "ent:5": 1,
    }
    assert viz.most_connected(tables) in {"ent:1", "ent:2", "ent:3", "ent:4"}


def test_most_connected_falls_back_to_a_label_or_none():
    bare = GraphTables.from_records(
        [{"id": "c0", "label": "Chunk"}, {"id": "e", "name": "E"}],
        [{"id": "m", "source": "e", "target": "c0", "type": "MENTIONED_IN"}],
    )
    assert viz.most_connected(bare) is None
    assert viz.most_connected(bare, label="Entity") == "e"


def test_one_per_community_picks_entities_in_different_communities():
    tables = _tables()
    picked = viz.one_per_community(tables, k=2)
    community = {f"ent:{i}": int(i >= 3) for i in range(6)}
    assert len(picked) == 2 and community[picked[0]] != community[picked[1]]
    assert picked[0] == viz.relation_degree(tables).index[0]


def test_views_colour_by_label_or_level_with_a_legend():
    tables = _tables()
    view = viz.neighbourhood_view(tables, "ent:2")
    assert view.view_title == "1-hop neighbourhood of E2"
    assert {e.text for e in view.legend} >= {"Entity", "Chunk"}
    levels = viz.hierarchy_view(tables)
    assert [e.text for e in levels.legend] == ["level 0 (entities)", "level 1 (summaries)"]
    assert len(levels.edges) == 3 and viz.node_name(tables, "nope") == "nope"


def test_views_of_a_graph_without_summaries_or_communities_are_empty_not_errors():
    bare = GraphTables.from_records([{"id": "e", "name": "E"}], [])
    view = viz.hierarchy_view(bare)
    assert view.nodes == [] and view.legend == []
    assert viz.one_per_community(bare) == [] and viz.relation_degree(bare).empty
