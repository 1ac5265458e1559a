"""Query-time access to a built graph: ``RetrievalGraph`` (tables, seed indexes, lookup maps,
evidence makers, lazy graph store) shared by every method, and HiRAG's bridge paths."""

from ace_lab.retrieval.graph import EdgeInfo, NodeInfo, RetrievalGraph
from ace_lab.retrieval.paths import bridge_paths

__all__ = ["EdgeInfo", "NodeInfo", "RetrievalGraph", "bridge_paths"]
