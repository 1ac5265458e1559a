"""Reading query rows: the nodes, edges and scalar values a result holds, and compact text.

``GraphStore.read`` returns nodes as property dicts with ``_labels``, relationships with
``_type`` and paths as ``{"nodes": [...], "relationships": [...]}``. The witness needs the graph
elements in them, with an edge's endpoints where the row shows them (a path, or a row with
exactly two nodes and one relationship); prompts need the rows as short lines, nodes shown by
their name and edges by their relation descriptor (which property that is comes from ``S_G``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ace_lab.arc.schema import StoreSchema

#: Longest text of one value in a rendered row.
VALUE_CHARS = 160


@dataclass(frozen=True)
class NodeItem:
    key: str
    text: str
    labels: tuple[str, ...]


@dataclass(frozen=True)
class EdgeItem:
    key: str
    descriptor: str
    source: str | None  # endpoint keys, when the row shows them
    target: str | None
    provenance: tuple[str, ...]


def is_node(value: Any) -> bool:
    return isinstance(value, dict) and "_labels" in value


def is_edge(value: Any) -> bool:
    return isinstance(value, dict) and "_type" in value


def is_path(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"nodes", "relationships"}


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def node_item(value: dict[str, Any], schema: StoreSchema) -> NodeItem:
    key = value.get(schema.key) if schema.key else None
    key = str(key) if key is not None else "n:" + _digest(value)
    text = value.get(schema.text_key) if schema.text_key else None
    return NodeItem(key, str(text) if text not in (None, "") else key, tuple(value["_labels"]))


def edge_item(
    value: dict[str, Any], schema: StoreSchema, source: str | None = None, target: str | None = None
) -> EdgeItem:
    key = value.get(schema.edge_key) if schema.edge_key else None
    key = str(key) if key is not None else "e:" + _digest(value)
    rho = value.get(schema.relation_property) if schema.relation_property else None
    rho = str(rho) if rho else str(value["_type"])
    prov: Any = value.get(schema.provenance_property) if schema.provenance_property else None
    prov = tuple(str(p) for p in prov) if isinstance(prov, list) else ((str(prov),) if prov else ())
    return EdgeItem(key, rho, source, target, prov)


def graph_items(row: dict[str, Any], schema: StoreSchema) -> tuple[list[NodeItem], list[EdgeItem]]:
    """Every node and edge of ``row`` (paths and nested lists included), endpoints where shown."""
    nodes: list[NodeItem] = []
    edges: list[EdgeItem] = []
    loose: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if is_path(value):
            path_nodes = [node_item(n, schema) for n in value["nodes"]]
            nodes.extend(path_nodes)
            for i, rel in enumerate(value["relationships"]):
                a = path_nodes[i].key if i < len(path_nodes) else None
                b = path_nodes[i + 1].key if i + 1 < len(path_nodes) else None
                edges.append(edge_item(rel, schema, a, b))
        elif is_node(value):
            nodes.append(node_item(value, schema))
        elif is_edge(value):
            loose.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    top_nodes_before = len(nodes)
    for v in row.values():
        walk(v)
    direct = nodes[top_nodes_before:]
    if len(loose) == 1 and len(direct) == 2:
        edges.append(edge_item(loose[0], schema, direct[0].key, direct[1].key))
    else:
        edges.extend(edge_item(e, schema) for e in loose)
    return nodes, edges


def value_text(value: Any, schema: StoreSchema) -> str:
    """One cell as short text: a node by its name, an edge by its descriptor, a path by hops."""
    if is_path(value):
        names = [node_item(n, schema).text for n in value["nodes"]]
        rels = [edge_item(r, schema).descriptor for r in value["relationships"]]
        parts = [names[0]] if names else []
        for rho, name in zip(rels, names[1:], strict=False):
            parts.append(f"-[{rho}]- {name}")
        return " ".join(parts)
    if is_node(value):
        return node_item(value, schema).text
    if is_edge(value):
        return f"[{edge_item(value, schema).descriptor}]"
    if isinstance(value, list):
        return "[" + ", ".join(value_text(v, schema) for v in value[:10]) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {value_text(v, schema)}" for k, v in value.items()) + "}"
    return str(value)[:VALUE_CHARS]


def row_text(row: dict[str, Any], schema: StoreSchema) -> str:
    return " | ".join(f"{k}={value_text(v, schema)}" for k, v in row.items())


def rows_text(rows: list[dict[str, Any]], schema: StoreSchema, limit: int = 15) -> str:
    """Up to ``limit`` rows, one per line, and how many more there were."""
    lines = [f"- {row_text(r, schema)}" for r in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"- … {len(rows) - limit} more rows")
    return "\n".join(lines) if lines else "(no rows)"


def row_values(row: dict[str, Any]) -> list[Any]:
    """The scalar values of a row (nested lists flattened; nodes and edges left out)."""
    out: list[Any] = []

    def walk(value: Any) -> None:
        if is_node(value) or is_edge(value) or is_path(value):
            return
        if isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif value is not None and value != "":
            out.append(value)

    for v in row.values():
        walk(v)
    return out
