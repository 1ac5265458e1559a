"""Which part of a graph to show, and its pyvis view: neighbourhoods, hierarchy slices, the most
connected entities and one entity per community (the end points of a bridge path).

Selections read ``GraphTables`` only. "Relation" edges are all edges except the structural ones
(``STRUCTURAL_EDGE_TYPES``: mentions, membership, communities, synonyms), the same rule the seed
indexes and the baselines use, for every graph family.
"""

from __future__ import annotations

import pandas as pd

from ace_lab.graph.seeds import STRUCTURAL_EDGE_TYPES
from ace_lab.graph.tables import GraphTables
from ace_lab.viz.network import GraphView, pyvis_view
from ace_lab.viz.palette import level_colour


def neighbourhood(
    tables: GraphTables,
    node_id: str,
    hops: int = 1,
    max_nodes: int = 60,
    edge_types: tuple[str, ...] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Nodes within ``hops`` of ``node_id`` (breadth first, at most ``max_nodes``) and the
    edges among them."""
    edges = tables.edges if edge_types is None else tables.edges_of_type(*edge_types)
    keep = [node_id]
    seen = {node_id}
    frontier = [node_id]
    for _ in range(hops):
        nxt = []
        touching = edges[edges["source"].isin(frontier) | edges["target"].isin(frontier)]
        for row in touching.sort_values("weight", ascending=False).itertuples():
            for other in (row.source, row.target):
                if other not in seen and len(keep) < max_nodes:
                    seen.add(other)
                    keep.append(other)
                    nxt.append(other)
        frontier = nxt
    nodes = tables.nodes[tables.nodes["id"].isin(seen)]
    sub = edges[edges["source"].isin(seen) & edges["target"].isin(seen)]
    return nodes, sub


def hierarchy_subgraph(
    tables: GraphTables, max_summaries: int = 8, max_members: int = 6
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The top summary entities of every level with a few members each (a readable slice)."""
    member = tables.edges_of_type("MEMBER_OF")
    summaries = tables.nodes_with_label("Summary")
    if summaries.empty:
        return summaries, member.iloc[0:0]
    sizes = member.groupby("target").size()
    keep: set[str] = set()
    for _level, group in summaries.groupby("level"):
        top = sizes.reindex(group["id"]).fillna(0).sort_values(ascending=False)
        keep.update(top.index[:max_summaries])
    chosen = member[member["target"].isin(keep)]
    chosen = chosen.groupby("target").head(max_members)
    ids = keep | set(chosen["source"])
    return tables.nodes[tables.nodes["id"].isin(ids)], chosen


def relation_edges(tables: GraphTables) -> pd.DataFrame:
    """Edges that state a fact (every type but ``STRUCTURAL_EDGE_TYPES``)."""
    return tables.edges[~tables.edges["type"].isin(STRUCTURAL_EDGE_TYPES)]


def relation_degree(tables: GraphTables) -> pd.Series:
    """Node id → number of relation edges it touches, most connected first."""
    core = relation_edges(tables)
    return pd.concat([core["source"], core["target"]]).value_counts()


def most_connected(tables: GraphTables, label: str | None = None) -> str | None:
    """The node with the most relation edges; with no relation edges, the first node with
    ``label`` (None when there is none, or when no ``label`` is given)."""
    degree = relation_degree(tables)
    if len(degree):
        return str(degree.index[0])
    fallback = tables.nodes_with_label(label) if label else tables.nodes.iloc[0:0]
    return str(fallback["id"].iloc[0]) if len(fallback) else None


def one_per_community(tables: GraphTables, k: int = 2) -> list[str]:
    """The ``k`` most connected entities that lie in different communities (``IN_COMMUNITY``;
    entities outside every community count as one more community): bridge-path end points."""
    membership = tables.edges_of_type("IN_COMMUNITY")
    community = dict(zip(membership["source"], membership["target"], strict=True))
    picked: list[str] = []
    seen: set[str | None] = set()
    for entity in relation_degree(tables).index:
        if community.get(entity) not in seen:
            picked.append(str(entity))
            seen.add(community.get(entity))
        if len(picked) == k:
            break
    return picked


def node_name(tables: GraphTables, node_id: str) -> str:
    """The display name of ``node_id`` (its id when it has no name)."""
    names = tables.nodes.set_index("id")["name"]
    return str(names.get(node_id, "") or node_id)


def neighbourhood_view(
    tables: GraphTables,
    focus: str,
    *,
    title: str = "",
    hops: int = 1,
    max_nodes: int = 40,
    height: str = "600px",
) -> GraphView:
    """The pyvis view of ``focus``'s neighbourhood, nodes coloured by label."""
    nodes, edges = neighbourhood(tables, focus, hops=hops, max_nodes=max_nodes)
    title = title or f"{hops}-hop neighbourhood of {node_name(tables, focus)}"
    caption = f"{len(nodes)} nodes, {len(edges)} edges · hover a node for its text"
    return pyvis_view(nodes, edges, title=title, caption=caption, height=height)


def hierarchy_view(
    tables: GraphTables,
    *,
    title: str = "Hierarchy levels: the largest summaries of each level with members",
    max_summaries: int = 8,
    max_members: int = 6,
    height: str = "600px",
) -> GraphView:
    """The pyvis view of ``hierarchy_subgraph``, nodes coloured by abstraction level (size
    grows with level too)."""
    nodes, edges = hierarchy_subgraph(tables, max_summaries, max_members)
    levels = sorted({int(v) for v in nodes["level"]})
    groups = {i: _level_group(v) for i, v in zip(nodes["id"], nodes["level"], strict=True)}
    palette = {_level_group(v): level_colour(v) for v in levels}
    caption = f"{len(nodes)} nodes, {len(edges)} MEMBER_OF edges · hover a node for its text"
    return pyvis_view(
        nodes, edges, title=title, colour_by=groups, palette=palette, caption=caption, height=height
    )


def _level_group(level: int) -> str:
    return "level 0 (entities)" if int(level) == 0 else f"level {int(level)} (summaries)"
