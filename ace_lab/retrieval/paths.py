"""HiRAG bridge paths, computed at query time over a hierarchical graph's saved tables.

Bridge paths are HiRAG's link between local and global knowledge: shortest paths between query
entities of different communities (retrieval over the graph, not construction).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import networkx as nx

from ace_lab.graph.tables import GraphTables


def bridge_paths(
    tables: GraphTables, entity_ids: Sequence[str], max_pairs: int = 6, max_hops: int = 4
) -> list[list[str]]:
    """HiRAG bridge paths: shortest paths linking query entities of different communities.

    Paths run over the undirected base relation graph plus the summary layer (``RELATED`` and
    ``MEMBER_OF`` edges), so two entities can be bridged through a shared summary entity. Pairs
    are taken in the given (relevance) order; paths longer than ``max_hops`` are skipped.
    """
    edges = tables.edges_of_type("RELATED", "MEMBER_OF")
    graph = nx.Graph()
    graph.add_edges_from(zip(edges["source"], edges["target"], strict=True))
    community = {
        row.source: row.target for row in tables.edges_of_type("IN_COMMUNITY").itertuples()
    }
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
