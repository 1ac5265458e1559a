"""Index-served starts for ArcRAG's own queries: the few nodes that can match, in scan order.

The anchor query (``arc/retrieve.py``) and the explorer's probe (``arc/explore.py``) match an
unlabelled pattern, ``(a)-[r]-()``, filtered by edge provenance or by anchor keys. A store can
answer that only by scanning every node and its edges: 2.5 s a query at 10^5 nodes
(``bench/graph_scale.py``). Each query now starts from a superset of the nodes ``a`` it can
bind, looked up through the per-label key indexes the loader creates, sorted by internal id:
the order in which FalkorDB's scan of all nodes visits them. The pattern and its ``WHERE`` are
unchanged, so the rows are the ones the scan returned, in the same order, and the prompts and
archived responses made from them still match (``tests/arc/test_seek.py`` compares the two).

Which nodes: the ends of the edges whose provenance holds a hit id, from a map built once per
graph from its tables (:func:`provenance_map`); the sources of the hit edges (:func:`edge_sources`);
the anchors and the nodes with an edge into one (found by the query itself, :func:`into_anchors`).
Where that cannot be known (no key property, unlabelled nodes, a store not loaded from these
tables), the callers keep the scan.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

from ace_lab.arc.schema import StoreSchema, q
from ace_lab.graph.store.load_plan import EDGE_PROPERTIES, NODE_PROPERTIES

#: Most labels one start may look up (each is one index lookup in the query's text).
MAX_LABELS = 64

_MAPS: weakref.WeakKeyDictionary[Any, dict[str, dict[str, tuple[str, ...]]]] = (
    weakref.WeakKeyDictionary()
)
_LOCK = threading.Lock()


def provenance_map(graph: Any, prop: str) -> dict[str, tuple[str, ...]]:
    """Source id → keys of both ends of every edge whose provenance (edge field ``prop``)
    holds it, built once per graph from its tables (a Python pass over the edges: about a
    second per 10^6 edges)."""
    with _LOCK:
        found = _MAPS.setdefault(graph, {}).get(prop)
        if found is not None:
            return found
        ends: dict[str, dict[str, None]] = {}
        for edge in graph.edges.values():
            for source_id in getattr(edge, prop) or ():
                keys = ends.setdefault(str(source_id), {})
                keys[edge.source] = None
                keys[edge.target] = None
        built = {source_id: tuple(keys) for source_id, keys in ends.items()}
        _MAPS[graph][prop] = built
        return built


def _names_rows(items: dict[str, Any], prop: str | None, written: Sequence[str]) -> bool:
    """Whether store property ``prop`` holds each table row's id: the loader writes it from the
    tables (``written``) and it is the row's id on the rows looked at (a sample suffices)."""
    if prop is None or prop not in written or not items:
        return False
    return all(getattr(row, prop, None) == key for key, row in itertools.islice(items.items(), 64))


def _from_tables(graph: Any, schema: StoreSchema) -> bool:
    """Whether ``graph``'s tables name the store's nodes: it keeps its nodes and edges (a
    ``RetrievalGraph``) and the identifier key holds each node's table id."""
    nodes, edges = getattr(graph, "nodes", None), getattr(graph, "edges", None)
    if not isinstance(nodes, dict) or not isinstance(edges, dict):
        return False
    return _names_rows(nodes, schema.key, NODE_PROPERTIES)


def _store_labels(graph: Any, keys: Iterable[str], skip: str | None) -> list[str] | None:
    """The labels of ``keys`` but ``skip``, or None when a key is not a labelled node."""
    labels: set[str] = set()
    for key in keys:
        node = graph.nodes.get(key)
        if node is None or not node.label:
            return None
        if skip is None or q(node.label) != q(skip):
            labels.add(node.label)
    return sorted(labels)


def starts(schema: StoreSchema, labels: Sequence[str], param: str, into: bool = False) -> str:
    """Cypher binding ``a`` to every node of ``labels`` whose key is in ``$param`` (with
    ``into``: and to every node with an edge into one), each once, in internal-id order."""
    key = q(schema.key or "")
    branches = [f"MATCH (a:{q(label)}) WHERE a.{key} IN ${param} RETURN a" for label in labels]
    if into:
        branches += [
            f"MATCH (a)-->(x:{q(label)}) WHERE x.{key} IN ${param} RETURN a" for label in labels
        ]
    return "CALL { " + " UNION ".join(branches) + " } WITH a ORDER BY id(a) "


def by_provenance(
    graph: Any, schema: StoreSchema, ids: Sequence[str]
) -> tuple[str, list[str]] | None:
    """Start of the anchor query for hit passages ``ids`` (the non-passage ends of the edges
    they are the provenance of): ``(cypher, keys)``, the keys bound as ``$nodes``; None where
    only a scan can answer."""
    prop = schema.provenance_property
    if not _from_tables(graph, schema) or prop is None or prop not in EDGE_PROPERTIES:
        return None
    found = provenance_map(graph, prop)
    keys = list(dict.fromkeys(k for i in ids for k in found.get(str(i), ())))
    return _start(graph, schema, keys, schema.passage_label)


def edge_sources(
    graph: Any, schema: StoreSchema, ids: Sequence[str]
) -> tuple[str, list[str]] | None:
    """Start of the triple-hint query for hit edges ``ids`` (their source nodes, passages
    too), as :func:`by_provenance`; None where only a scan can answer."""
    if not _from_tables(graph, schema) or not _names_rows(
        graph.edges, schema.edge_key, EDGE_PROPERTIES
    ):
        return None
    edges = [graph.edges.get(str(i)) for i in ids]
    keys = list(dict.fromkeys(e.source for e in edges if e is not None))
    return _start(graph, schema, keys, None)


def _start(
    graph: Any, schema: StoreSchema, keys: list[str], skip: str | None
) -> tuple[str, list[str]] | None:
    labels = _store_labels(graph, keys, skip)
    if labels is None:
        return None
    if not labels:  # nothing can match: a lookup of the keys under one label keeps the shape
        labels = [label for label, _ in schema.labels[:1] if label]
    if not labels or len(labels) > MAX_LABELS:
        return None
    return starts(schema, labels, "nodes"), keys


def into_anchors(schema: StoreSchema, labels: Sequence[Sequence[str]]) -> str | None:
    """Start of the probe at anchors carrying ``labels`` (one group per anchor): the anchors
    (``$anchors``) and the nodes with an edge into one; None where only a scan can answer."""
    if schema.key is None or not labels or any(not group for group in labels):
        return None
    found = sorted({label for group in labels for label in group})
    if not all(found) or len(found) > MAX_LABELS:
        return None
    return starts(schema, found, "anchors", into=True)
