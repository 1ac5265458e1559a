"""HiRAG bridge paths, computed at query time over a hierarchical graph's saved tables.

Bridge paths are HiRAG's link between local and global knowledge: shortest paths between query
entities of different communities (retrieval over the graph, not construction).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import networkx as nx

from ace_lab.graph.tables import GraphTables

#: The graph bridge paths run on and each entity's community (see :func:`bridge_index`).
BridgeIndex = tuple[nx.Graph, dict[str, str]]


def bridge_index(tables: GraphTables) -> BridgeIndex:
    """The undirected ``RELATED`` + ``MEMBER_OF`` graph and the entity → community map, built
    once per graph (:attr:`ace_lab.retrieval.RetrievalGraph.bridge_index`): rebuilding them per
    query cost O(edges), 0.1 s at 10^4 nodes and 1 s at 10^5 (bench/graph_scale.py)."""
    edges = tables.edges_of_type("RELATED", "MEMBER_OF")
    graph = nx.Graph()
    graph.add_edges_from(zip(edges["source"], edges["target"], strict=True))
    links = tables.edges_of_type("IN_COMMUNITY")
    community = dict(zip(links["source"], links["target"], strict=True))
    return graph, community


def bridge_paths(
    tables: GraphTables,
    entity_ids: Sequence[str],
    max_pairs: int = 6,
    max_hops: int = 4,
    *,
    index: BridgeIndex | None = None,
) -> list[list[str]]:
    """HiRAG bridge paths: shortest paths linking query entities of different communities.

    Paths run over the undirected base relation graph plus the summary layer (``RELATED`` and
    ``MEMBER_OF`` edges), so two entities can be bridged through a shared summary entity. Pairs
    are taken in the given (relevance) order; paths longer than ``max_hops`` are skipped.
    ``index`` is ``bridge_index(tables)`` when the caller keeps one (built here otherwise).
    """
    graph, community = index if index is not None else bridge_index(tables)
    paths = []
    for a, b in itertools.combinations([e for e in entity_ids if e in graph], 2):
        if community.get(a) is not None and community.get(a) == community.get(b):
            continue
        try:
            path = nx.shortest_path(graph, a, b)
        except nx.NetworkXNoPath:
            continue
        if len(path) - 1 <= max_hops:
            paths.append(path)
        if len(paths) >= max_pairs:
            break
    return paths
