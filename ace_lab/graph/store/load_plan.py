"""The load plan: how a GraphTables artefact becomes batched, parameterised Cypher writes.

Nodes are created per label (so each label gets its ``id`` index before any edge is matched),
then edges per (source label, target label, type); every statement is one ``UNWIND $rows``
over a batch of plain Python rows. The plan is backend-neutral: FalkorDB and Bolt stores run
the same statements.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ace_lab.graph.store.errors import StoreError
from ace_lab.graph.tables import GraphTables

#: Rows per ``UNWIND`` batch when loading: large enough to amortise a round trip, small enough
#: that one statement (chunk texts included) stays a few MB.
LOAD_BATCH = 1000

NODE_PROPERTIES = ("id", "name", "type", "description", "level", "source_ids")
EDGE_PROPERTIES = ("id", "predicate", "description", "weight", "level", "source_ids")
#: The provenance property, left out of the store of a graph without provenance.
PROVENANCE = "source_ids"


def cypher_name(name: str) -> str:
    """A label, type or property name as a backtick-quoted Cypher identifier.

    Schema types come from model output (``Person``, ``Sports Team``, ``R&D``), so every name
    is quoted. FalkorDB's parser rejects the standard doubled-backtick escape, so a backtick
    inside a name becomes ``_`` on every backend (the graph then shows ``A_B`` for ``A`B``).
    An empty name is an error rather than a silently invalid statement.
    """
    if not name:
        raise StoreError("empty label or relationship type")
    return "`" + name.replace("`", "_") + "`"


def column_values(values: pd.Series) -> list[Any]:
    """A column as Python values: drivers reject numpy scalars, Cypher has no NaN/inf literal."""
    out = values.tolist()  # pandas boxes int64/float64/string to int/float/str
    if values.name == "source_ids":
        return [list(map(str, ids)) for ids in out]
    if values.dtype.kind == "f":
        return [v if math.isfinite(v) else None for v in out]
    return out


def _records(df: pd.DataFrame, columns: Sequence[str]) -> list[dict[str, Any]]:
    data = [column_values(df[c]) for c in columns]
    return [dict(zip(columns, row, strict=True)) for row in zip(*data, strict=True)]


def _batches(rows: list[dict[str, Any]], size: int = LOAD_BATCH) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def written(tables: GraphTables, properties: Sequence[str]) -> tuple[str, ...]:
    """The ``properties`` a load of ``tables`` writes: all, or all but ``source_ids`` when the
    tables keep no provenance (``GraphTables.provenance``)."""
    return tuple(p for p in properties if tables.provenance or p != PROVENANCE)


@dataclass(frozen=True)
class LoadStep:
    """One parameterised write: ``UNWIND $rows`` over ``rows``."""

    cypher: str
    rows: list[dict[str, Any]]


def node_steps(tables: GraphTables) -> Iterator[tuple[str, list[LoadStep]]]:
    """Per label: the node-creating batches (the caller indexes the label before edges)."""
    keys = written(tables, NODE_PROPERTIES)
    props = ", ".join(f"{p}: r.{p}" for p in keys)
    for label, group in node_groups(tables):
        cypher = f"UNWIND $rows AS r CREATE (:{cypher_name(label)} {{{props}}})"
        rows = _records(group, keys)
        yield label, [LoadStep(cypher, batch) for batch in _batches(rows)]


def node_positions(tables: GraphTables) -> list[tuple[str, np.ndarray]]:
    """Row positions of the nodes per label, labels sorted, rows in table order: the order
    every load path creates nodes in."""
    groups = tables.nodes.groupby("label", sort=True).indices
    return [(str(label), groups[label]) for label in sorted(groups)]


def edge_positions(tables: GraphTables) -> list[tuple[tuple[str, str, str], np.ndarray]]:
    """Row positions of the edges per (source label, target label, type), sorted, rows in
    table order: the order every load path creates edges in."""
    edges = tables.edges
    if edges.empty:
        return []
    label_of = pd.Series(tables.nodes["label"].to_numpy(), index=tables.nodes["id"].to_numpy())
    keys = pd.DataFrame(
        {
            "s": edges["source"].map(label_of).to_numpy(),
            "t": edges["target"].map(label_of).to_numpy(),
            "r": edges["type"].to_numpy(),
        }
    )
    groups = keys.groupby(["s", "t", "r"], sort=True).indices
    return [((str(s), str(t), str(r)), groups[(s, t, r)]) for s, t, r in sorted(groups)]


def node_groups(tables: GraphTables) -> Iterator[tuple[str, pd.DataFrame]]:
    """Nodes per label, in :func:`node_positions` order."""
    for label, rows in node_positions(tables):
        yield label, tables.nodes.iloc[rows]


def edge_groups(tables: GraphTables) -> Iterator[tuple[str, str, str, pd.DataFrame]]:
    """Edges per (source label, target label, type), in :func:`edge_positions` order."""
    for (src, dst, rel), rows in edge_positions(tables):
        yield src, dst, rel, tables.edges.iloc[rows]


def edge_steps(tables: GraphTables) -> Iterator[LoadStep]:
    """Edge batches grouped by (source label, target label, type).

    Naming both endpoint labels lets each ``MATCH ... {id: r.source}`` use that label's id
    index instead of scanning every node, which is what makes 40k edges load in seconds.
    """
    keys = written(tables, EDGE_PROPERTIES)
    props = ", ".join(f"{p}: r.{p}" for p in keys)
    for src, dst, rel, group in edge_groups(tables):
        cypher = (
            f"UNWIND $rows AS r "
            f"MATCH (a:{cypher_name(src)} {{id: r.source}}) "
            f"MATCH (b:{cypher_name(dst)} {{id: r.target}}) "
            f"CREATE (a)-[:{cypher_name(rel)} {{{props}}}]->(b)"
        )
        rows = _records(group, ("source", "target", *keys))
        yield from (LoadStep(cypher, batch) for batch in _batches(rows))
