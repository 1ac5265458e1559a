"""Graph construction (three families, one shared triple assembly), tables, store, seed indexes."""

from ace_lab.graph.build import FAMILIES, GRAPH_FAMILIES, build_graph, load_graph
from ace_lab.graph.tables import GraphTables, GraphTablesError

__all__ = [
    "FAMILIES",
    "GRAPH_FAMILIES",
    "GraphTables",
    "GraphTablesError",
    "build_graph",
    "load_graph",
]
