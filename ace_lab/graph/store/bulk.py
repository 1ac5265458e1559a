"""FalkorDB's ``GRAPH.BULK``: a new graph from binary node and edge buffers, without Cypher.

Loading through ``UNWIND $rows`` spends most of its time in the ``falkordb`` client turning
rows into query text and in the server matching every edge's ends by ``id``; the bulk-insert
protocol (the one ``falkordb-bulk-loader`` speaks) sends typed values and edge ends as the
nodes' positions instead. :func:`bulk_calls` packs a :class:`GraphTables` into the argument
lists of successive ``GRAPH.BULK`` calls; the store sends them (:mod:`.falkordb`).

Nodes go in the order the ``UNWIND`` plan creates them (by label, sorted) and edges in its
order too (by source label, target label, type), so internal ids, and with them the order of
unsorted results, are the same either way. The values are the ones the ``UNWIND`` plan sends
(:func:`~ace_lab.graph.store.load_plan.column_values`); one the protocol cannot carry exactly (a
map, a NUL inside a string, an integer past 64 bits, a label with ``:``) raises
:class:`BulkUnsupported` before anything is sent, and the store loads through ``UNWIND``.

Protocol (FalkorDB ``src/bulk_insert``): ``GRAPH.BULK <graph> [BEGIN] <nodes> <edges>
<node tokens> <edge tokens> <token>...``; ``BEGIN`` (first call only) requires that the graph
does not exist. A token is a header (entity name, NUL; uint32 property count; property names,
each NUL-terminated) followed by entities: an edge starts with its source and target node ids
(two uint64), then every entity has one typed value per property: a type byte (0 null, which
leaves the property unset, as ``CREATE`` does with a null; 1 bool; 2 double; 3 string,
NUL-terminated; 4 int64; 5 array: int64 length then typed values).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from ace_lab.graph.store.errors import StoreError
from ace_lab.graph.store.load_plan import (
    EDGE_PROPERTIES,
    NODE_PROPERTIES,
    column_values,
    edge_positions,
    node_positions,
    written,
)
from ace_lab.graph.tables import GraphTables

#: Largest token (one label's or edge group's slice), bytes: Redis caps one argument at 512 MB.
MAX_TOKEN_BYTES = 32 * 2**20
#: Largest ``GRAPH.BULK`` call, bytes: the server holds a whole call in memory while it parses.
MAX_CALL_BYTES = 128 * 2**20

NULL, BOOL, DOUBLE, STRING, LONG, ARRAY = range(6)
_LONG = struct.Struct("=Bq")
_DOUBLE = struct.Struct("=Bd")
_ARRAY = struct.Struct("=Bq")
_COUNT = struct.Struct("=I")
_NULL = bytes([NULL])
_TRUE, _FALSE = bytes([BOOL, 1]), bytes([BOOL, 0])
_STRING = bytes([STRING])


class BulkUnsupported(StoreError):
    """The tables hold a value or name ``GRAPH.BULK`` cannot carry exactly (load via UNWIND)."""


def _string(text: str) -> bytes:
    return _STRING + text.encode() + b"\0"


def encode_value(value: Any) -> bytes:
    """One property value in the bulk format (``None``: null, the property is left unset)."""
    kind = type(value)
    if value is None:
        return _NULL
    if kind is bool:
        return _TRUE if value else _FALSE
    if kind is str:
        if "\0" in value:
            raise BulkUnsupported("a string holds a NUL byte")
        return _string(value)
    if kind is int:
        try:
            return _LONG.pack(LONG, value)
        except struct.error as exc:
            raise BulkUnsupported(f"integer {value} does not fit in 64 bits") from exc
    if kind is float:
        return _DOUBLE.pack(DOUBLE, value)
    if kind is list or kind is tuple:
        return _ARRAY.pack(ARRAY, len(value)) + b"".join(map(encode_value, value))
    raise BulkUnsupported(f"no bulk encoding for a {kind.__name__} value")


def encode_column(values: list[Any]) -> list[bytes]:
    """Every value of one column, encoded (fast paths for all-string and all-int columns)."""
    kinds = set(map(type, values))
    if kinds == {str}:
        if "\0" in "".join(values):
            raise BulkUnsupported("a string holds a NUL byte")
        return [_STRING + v.encode() + b"\0" for v in values]
    if kinds == {int}:
        try:
            return [_LONG.pack(LONG, v) for v in values]
        except struct.error as exc:
            raise BulkUnsupported("an integer does not fit in 64 bits") from exc
    if kinds == {list} and set(map(type, chain.from_iterable(values))) <= {str}:
        return _string_lists(values)
    return [encode_value(v) for v in values]


def _string_lists(values: list[list[str]]) -> list[bytes]:
    """Lists of strings (``source_ids``): one join and one encode per list."""
    if "\0" in "".join(chain.from_iterable(values)):
        raise BulkUnsupported("a string holds a NUL byte")
    empty = _ARRAY.pack(ARRAY, 0)
    return [
        _ARRAY.pack(ARRAY, len(v)) + ("\3" + "\0\3".join(v) + "\0").encode() if v else empty
        for v in values
    ]


def entity_name(name: str) -> bytes:
    """A label or relationship type as the header names it (as ``cypher_name`` writes it)."""
    text = name.replace("`", "_")
    if not text or ":" in text or "\0" in text:  # the server splits a header name at ':'
        raise BulkUnsupported(f"label or type {name!r} cannot be named in a bulk header")
    return text.encode()


def header(name: str, properties: Sequence[str]) -> bytes:
    """A token's header: entity name, property count, property names."""
    names = b"".join(p.encode() + b"\0" for p in properties)
    return entity_name(name) + b"\0" + _COUNT.pack(len(properties)) + names


@dataclass
class BulkCall:
    """The arguments of one ``GRAPH.BULK`` call after the graph name (``BEGIN`` added first)."""

    nodes: int = 0
    edges: int = 0
    node_tokens: list[bytes] = field(default_factory=list)
    edge_tokens: list[bytes] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(map(len, self.node_tokens)) + sum(map(len, self.edge_tokens))

    def args(self, begin: bool) -> list[Any]:
        counts = [self.nodes, self.edges, len(self.node_tokens), len(self.edge_tokens)]
        return (["BEGIN"] if begin else []) + counts + self.node_tokens + self.edge_tokens


def _tokens(head: bytes, rows: list[bytes], limit: int) -> Iterator[tuple[int, bytes]]:
    """``rows`` after ``head`` in tokens of at most ``limit`` bytes: (row count, token)."""
    start, size = 0, len(head)
    for i, row in enumerate(rows):
        if size + len(row) > limit and i > start:
            yield i - start, head + b"".join(rows[start:i])
            start, size = i, len(head)
        size += len(row)
    if len(rows) > start:
        yield len(rows) - start, head + b"".join(rows[start:])


def _rows(
    frame: pd.DataFrame, keys: Sequence[str], prefix: list[bytes] | None = None
) -> list[bytes]:
    """Every row of ``frame`` encoded once (``prefix``: an edge's two ends), in frame order:
    per-group work would repeat pandas' per-call overhead for each of hundreds of groups."""
    columns = [encode_column(column_values(frame[k])) for k in keys]
    return [b"".join(parts) for parts in zip(*([prefix] if prefix else []), *columns, strict=True)]


def _edge_ends(tables: GraphTables, node_order: np.ndarray) -> list[bytes]:
    """Per edge, its source and target as the node ids the server gives them (two uint64):
    a fresh graph numbers nodes 0, 1, ... in the order they are sent."""
    server_id = np.empty(len(node_order), dtype=np.int64)
    server_id[node_order] = np.arange(len(node_order))
    row_of = pd.Index(tables.nodes["id"].to_numpy(dtype=object))
    if not row_of.is_unique:
        raise BulkUnsupported("node ids are not unique")
    rows = [
        row_of.get_indexer(tables.edges[end].to_numpy(dtype=object)) for end in ("source", "target")
    ]
    if any((r < 0).any() for r in rows):
        raise BulkUnsupported("an edge names a node that is not in the tables")
    packed = np.stack([server_id[r] for r in rows], axis=1).astype(np.uint64).tobytes()
    return [packed[i : i + 16] for i in range(0, len(packed), 16)]  # native order, as read


def bulk_calls(
    tables: GraphTables, token_bytes: int | None = None, call_bytes: int | None = None
) -> Iterator[BulkCall]:
    """The ``GRAPH.BULK`` calls that create ``tables`` in an empty graph (tokens of at most
    ``token_bytes``, calls of about ``call_bytes``; by default the module's limits).

    Every node token comes before every edge token (an edge names nodes created earlier).
    Raises :class:`BulkUnsupported` while packing a value the protocol cannot carry.
    """
    token_bytes = token_bytes or MAX_TOKEN_BYTES
    call_bytes = call_bytes or MAX_CALL_BYTES
    nodes, edges = tables.nodes, tables.edges
    node_keys, edge_keys = written(tables, NODE_PROPERTIES), written(tables, EDGE_PROPERTIES)
    node_rows = _rows(nodes, node_keys)
    labels = node_positions(tables)
    tokens: list[tuple[bool, int, bytes]] = []  # (is a node token, entities, token)
    for label, where in labels:
        head = header(label, node_keys)
        tokens += [(True, *t) for t in _tokens(head, [node_rows[i] for i in where], token_bytes)]
    del node_rows
    if not edges.empty:
        ends = _edge_ends(tables, np.concatenate([where for _, where in labels]))
        edge_rows = _rows(edges, edge_keys, ends)
        for (_, _, rel), where in edge_positions(tables):
            head = header(rel, edge_keys)
            picked = [edge_rows[i] for i in where]
            tokens += [(False, *t) for t in _tokens(head, picked, token_bytes)]
    call, size = BulkCall(), 0
    for is_node, count, token in tokens:
        if size + len(token) > call_bytes and size:
            yield call
            call, size = BulkCall(), 0
        size += len(token)
        if is_node:
            call.nodes += count
            call.node_tokens.append(token)
        else:
            call.edges += count
            call.edge_tokens.append(token)
    if size:
        yield call
