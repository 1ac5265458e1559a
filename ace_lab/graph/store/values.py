"""Driver values as plain data: what ``GraphStore.read`` turns each result cell into.

FalkorDB and neo4j return their own node, relationship and path objects; a prompt (and a test)
needs JSON-like dicts and lists instead. Nodes become property dicts plus ``_labels``,
relationships plus ``_type``, paths ``{"nodes": [...], "relationships": [...]}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from falkordb.edge import Edge as FalkorEdge
from falkordb.node import Node as FalkorNode
from falkordb.path import Path as FalkorPath


def plain_value(value: Any) -> Any:
    """Driver values (nodes, edges, paths, ordered maps) as plain JSON-like Python data."""
    if isinstance(value, FalkorNode):
        return {"_labels": list(value.labels or []), **plain_value(dict(value.properties))}
    if isinstance(value, FalkorEdge):
        return {"_type": value.relation, **plain_value(dict(value.properties))}
    if isinstance(value, FalkorPath):
        return {
            "nodes": [plain_value(n) for n in value.nodes()],
            "relationships": [plain_value(e) for e in value.edges()],
        }
    if _is_neo4j_graph_value(value):
        return _plain_neo4j(value)
    if isinstance(value, Mapping):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    return value


def _is_neo4j_graph_value(value: Any) -> bool:
    return type(value).__module__.startswith("neo4j")


def _plain_neo4j(value: Any) -> Any:
    from neo4j.graph import Node, Path, Relationship

    if isinstance(value, Node):
        return {"_labels": sorted(value.labels), **plain_value(dict(value.items()))}
    if isinstance(value, Relationship):
        return {"_type": value.type, **plain_value(dict(value.items()))}
    if isinstance(value, Path):
        return {
            "nodes": [plain_value(n) for n in value.nodes],
            "relationships": [plain_value(r) for r in value.relationships],
        }
    return str(value)  # temporal/spatial values: their ISO text is what a prompt can use
