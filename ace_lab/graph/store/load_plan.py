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

import pandas as pd

from ace_lab.graph.store.errors import StoreError
from ace_lab.graph.tables import GraphTables

#: Rows per ``UNWIND`` batch when loading: large enough to amortise a round trip, small enough
#: that one statement (chunk texts included) stays a few MB.
LOAD_BATCH = 1000

NODE_PROPERTIES = ("id", "name", "type", "description", "level", "source_ids")
EDGE_PROPERTIES = ("id", "predicate", "description", "weight", "level", "source_ids")


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


def _column(values: pd.Series) -> list[Any]:
    """A column as Python values: drivers reject numpy scalars, Cypher has no NaN/inf literal."""
    out = values.tolist()  # pandas boxes int64/float64/string to int/float/str
    if values.name == "source_ids":
        return [[str(v) for v in ids] for ids in out]
    if values.dtype.kind == "f":
        return [v if math.isfinite(v) else None for v in out]
    return out


def _records(df: pd.DataFrame, columns: Sequence[str]) -> list[dict[str, Any]]:
    data = [_column(df[c]) for c in columns]
    return [dict(zip(columns, row, strict=True)) for row in zip(*data, strict=True)]


def _batches(rows: list[dict[str, Any]], size: int = LOAD_BATCH) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


@dataclass(frozen=True)
class LoadStep:
    """One parameterised write: ``UNWIND $rows`` over ``rows``."""

    cypher: str
    rows: list[dict[str, Any]]


def node_steps(tables: GraphTables) -> Iterator[tuple[str, list[LoadStep]]]:
    """Per label: the node-creating batches (the caller indexes the label before edges)."""
    props = ", ".join(f"{p}: r.{p}" for p in NODE_PROPERTIES)
    for label, group in tables.nodes.groupby("label", sort=True):
        cypher = f"UNWIND $rows AS r CREATE (:{cypher_name(str(label))} {{{props}}})"
        rows = _records(group, NODE_PROPERTIES)
        yield str(label), [LoadStep(cypher, batch) for batch in _batches(rows)]


def edge_steps(tables: GraphTables) -> Iterator[LoadStep]:
    """Edge batches grouped by (source label, target label, type).

    Naming both endpoint labels lets each ``MATCH ... {id: r.source}`` use that label's id
    index instead of scanning every node, which is what makes 40k edges load in seconds.
    """
    edges = tables.edges
    if edges.empty:
        return
    label_of = pd.Series(tables.nodes["label"].to_numpy(), index=tables.nodes["id"].to_numpy())
    edges = edges.assign(
        _sl=edges["source"].map(label_of).to_numpy(), _tl=edges["target"].map(label_of).to_numpy()
    )
    props = ", ".join(f"{p}: r.{p}" for p in EDGE_PROPERTIES)
    for (src, dst, rel), group in edges.groupby(["_sl", "_tl", "type"], sort=True):
        cypher = (
            f"UNWIND $rows AS r "
            f"MATCH (a:{cypher_name(str(src))} {{id: r.source}}) "
            f"MATCH (b:{cypher_name(str(dst))} {{id: r.target}}) "
            f"CREATE (a)-[:{cypher_name(str(rel))} {{{props}}}]->(b)"
        )
        rows = _records(group, ("source", "target", *EDGE_PROPERTIES))
        yield from (LoadStep(cypher, batch) for batch in _batches(rows))
