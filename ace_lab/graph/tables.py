"""GraphTables: the canonical graph artefact — two tables and a metadata record.

Every graph family (hierarchical, OpenIE, typed) is saved in this one shape; the graph store,
the hybrid index, the notebooks and the methods all load from it. On disk a graph is a folder:

    nodes.parquet   id, label, name, type, description, level, source_ids
    edges.parquet   id, source, target, type, predicate, description, weight, level, source_ids
    meta.json       family, dataset, slice, model, the command that regenerates it, counts

``label`` is the node's kind in the property graph (``Entity``, ``Chunk``, ``Summary``,
``Community`` or, in the typed family, a schema type such as ``Person``); ``type`` is the
extractor's free entity type. ``source_ids`` are chunk ids (provenance). Edge ``type`` is the
relationship type; OpenIE graphs keep one type and put the predicate in ``predicate``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx
import pandas as pd

NODE_COLUMNS: dict[str, str] = {
    "id": "string",
    "label": "string",
    "name": "string",
    "type": "string",
    "description": "string",
    "level": "int64",
    "source_ids": "object",
}
EDGE_COLUMNS: dict[str, str] = {
    "id": "string",
    "source": "string",
    "target": "string",
    "type": "string",
    "predicate": "string",
    "description": "string",
    "weight": "float64",
    "level": "int64",
    "source_ids": "object",
}
_DEFAULTS: dict[str, Any] = {
    "label": "Entity",
    "name": "",
    "type": "",
    "predicate": "",
    "description": "",
    "level": 0,
    "weight": 1.0,
}


class GraphTablesError(ValueError):
    """A graph artefact is missing, corrupt or inconsistent (the message names the file)."""


def _id_tuple(value: Any) -> tuple[str, ...]:
    """Sorted unique chunk ids from a list/array/tuple; anything else (NaN, None) is empty."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable):
        return tuple(sorted({str(v) for v in value}))
    return ()


def _frame(rows: Iterable[Mapping[str, Any]], columns: dict[str, str]) -> pd.DataFrame:
    df = pd.DataFrame(list(rows))
    for col in columns:
        if col not in df.columns:
            df[col] = [() for _ in range(len(df))] if col == "source_ids" else _DEFAULTS.get(col)
    df = df[list(columns)].copy()
    df["source_ids"] = [_id_tuple(v) for v in df["source_ids"]]
    for col, dtype in columns.items():
        if col != "source_ids":
            df[col] = df[col].fillna(_DEFAULTS.get(col, "")).astype(dtype)
    return df.reset_index(drop=True)


@dataclass
class GraphTables:
    nodes: pd.DataFrame
    edges: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_records(
        cls,
        nodes: Iterable[Mapping[str, Any]],
        edges: Iterable[Mapping[str, Any]],
        meta: Mapping[str, Any] | None = None,
    ) -> GraphTables:
        tables = cls(_frame(nodes, NODE_COLUMNS), _frame(edges, EDGE_COLUMNS), dict(meta or {}))
        tables.validate()
        return tables

    # ------------------------------------------------------------------ checks
    def validate(self) -> None:
        """Unique node and edge ids; every edge endpoint is a node."""
        dup = self.nodes["id"][self.nodes["id"].duplicated()]
        if len(dup):
            raise GraphTablesError(f"duplicate node ids: {list(dup[:5])}")
        dup = self.edges["id"][self.edges["id"].duplicated()]
        if len(dup):
            raise GraphTablesError(f"duplicate edge ids: {list(dup[:5])}")
        known = set(self.nodes["id"])
        dangling = [
            e for e in pd.concat([self.edges["source"], self.edges["target"]]) if e not in known
        ]
        if dangling:
            raise GraphTablesError(f"edges point at unknown nodes: {sorted(set(dangling))[:5]}")

    # --------------------------------------------------------------------- io
    def save(self, folder: Path | str) -> Path:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        for name, df in (("nodes", self.nodes), ("edges", self.edges)):
            out = df.copy()
            out["source_ids"] = [list(v) for v in out["source_ids"]]
            out.to_parquet(folder / f"{name}.parquet", index=False, compression="zstd")
        meta = dict(self.meta) | {"counts": self.counts()}
        (folder / "meta.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
        return folder

    @classmethod
    def load(cls, folder: Path | str) -> GraphTables:
        folder = Path(folder)
        frames = {}
        for name, columns in (("nodes", NODE_COLUMNS), ("edges", EDGE_COLUMNS)):
            path = folder / f"{name}.parquet"
            if not path.is_file():
                raise GraphTablesError(f"graph artefact missing: {path}")
            try:
                df = pd.read_parquet(path)
            except Exception as exc:  # pyarrow raises several types for a damaged file
                raise GraphTablesError(f"graph artefact unreadable: {path}: {exc}") from exc
            missing = set(columns) - set(df.columns)
            if missing:
                raise GraphTablesError(f"{path}: missing columns {sorted(missing)}")
            frames[name] = _frame(df.to_dict("records"), columns)
        meta_path = folder / "meta.json"
        try:
            meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
        except json.JSONDecodeError as exc:
            raise GraphTablesError(f"{meta_path}: corrupt JSON: {exc}") from exc
        tables = cls(frames["nodes"], frames["edges"], meta)
        tables.validate()
        return tables

    # ------------------------------------------------------------------ views
    def to_networkx(self) -> nx.MultiDiGraph:
        """All nodes and edges with their columns as attributes (edge key = edge id)."""
        graph = nx.MultiDiGraph()
        for row in self.nodes.to_dict("records"):
            graph.add_node(row["id"], **{k: v for k, v in row.items() if k != "id"})
        for row in self.edges.to_dict("records"):
            attrs = {k: v for k, v in row.items() if k not in ("source", "target")}
            graph.add_edge(row["source"], row["target"], key=row["id"], **attrs)
        return graph

    @property
    def provenance(self) -> bool:
        """Whether rows keep their ``source_ids``: a view without provenance (``openie-bare``,
        ``meta["provenance"] = False``) loads into a store without that property."""
        return self.meta.get("provenance", True) is not False

    def nodes_with_label(self, *labels: str) -> pd.DataFrame:
        return self.nodes[self.nodes["label"].isin(labels)]

    def edges_of_type(self, *types: str) -> pd.DataFrame:
        return self.edges[self.edges["type"].isin(types)]

    def counts(self) -> dict[str, Any]:
        return {
            "nodes": len(self.nodes),
            "edges": len(self.edges),
            "node_labels": self.nodes["label"].value_counts().to_dict(),
            "edge_types": self.edges["type"].value_counts().to_dict(),
        }

    def stats(self) -> pd.DataFrame:
        """Summary statistics per node label: count, levels, mean degree, chunks covered."""
        degree = pd.concat([self.edges["source"], self.edges["target"]]).value_counts()
        rows = []
        for label, group in self.nodes.groupby("label"):
            deg = degree.reindex(group["id"]).fillna(0)
            chunks = {c for ids in group["source_ids"] for c in ids}
            rows.append(
                {
                    "label": label,
                    "nodes": len(group),
                    "levels": ",".join(str(v) for v in sorted(group["level"].unique())),
                    "mean_degree": round(float(deg.mean()), 2),
                    "max_degree": int(deg.max()) if len(deg) else 0,
                    "isolated": int((deg == 0).sum()),
                    "chunks_covered": len(chunks),
                }
            )
        return pd.DataFrame(rows).set_index("label")
