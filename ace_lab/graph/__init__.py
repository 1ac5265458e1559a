"""Graph construction (three families, one shared triple assembly), tables, store, seed indexes."""

from ace_lab.graph.build import FAMILIES, build_graph, load_graph
from ace_lab.graph.tables import GraphTables, GraphTablesError

__all__ = ["FAMILIES", "GraphTables", "GraphTablesError", "build_graph", "load_graph"]
