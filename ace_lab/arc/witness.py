"""The witness ``W``: what acceptable queries returned, accumulated across passes, replayable.

Algorithm 1, line 20. Each node, edge and row of an acceptable result joins the witness tagged
with the pass, the subplan and the query that produced it (an element found again keeps its
first tag and lists the later ones). The stored queries are the witness's proof:
:meth:`Witness.replay` re-executes each one with its parameters and reports whether the same
rows come back. The recorded witness (``ArcDetails.witness``, JSON) keeps a digest of each
query's rows, so :func:`replay_recorded` can check it later from the record alone.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ace_lab.arc.execute import QueryRecord, run_cypher
from ace_lab.arc.rows import graph_items, row_text
from ace_lab.arc.schema import StoreSchema
from ace_lab.graph.store import GraphStore


@dataclass(frozen=True)
class WitnessQuery:
    id: str  # "p<pass>.s<subplan>"
    pass_: int
    subplan: int
    cypher: str
    params: dict[str, Any]
    rows: list[dict[str, Any]]


@dataclass
class WitnessElement:
    kind: str  # "node" | "edge" | "row"
    key: str
    text: str
    pass_: int
    subplan: int
    query: str  # WitnessQuery.id
    labels: tuple[str, ...] = ()
    source: str | None = None
    target: str | None = None
    provenance: tuple[str, ...] = ()
    seen_in: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ReplayResult:
    query: str
    same: bool
    rows_before: int
    rows_after: int
    error: str | None = None


def _canonical(rows: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)


def rows_digest(rows: list[dict[str, Any]]) -> str:
    """A digest of ``rows`` in any order: equal digests, the same rows."""
    return hashlib.sha1("\n".join(_canonical(rows)).encode()).hexdigest()


class Witness:
    """Nodes, edges and rows of acceptable results, in the order they were found."""

    def __init__(self) -> None:
        self.queries: list[WitnessQuery] = []
        self.elements: dict[tuple[str, str], WitnessElement] = {}

    def add(self, record: QueryRecord, pass_: int, subplan: int, schema: StoreSchema) -> int:
        """Add an acceptable result; returns how many new elements joined."""
        qid = f"p{pass_}.s{subplan}"
        self.queries.append(
            WitnessQuery(qid, pass_, subplan, record.text, dict(record.params), list(record.rows))
        )
        before = len(self.elements)
        for row in record.rows:
            nodes, edges = graph_items(row, schema)
            for n in nodes:
                self._put("node", n.key, n.text, pass_, subplan, qid, labels=n.labels)
            names = {n.key: n.text for n in nodes}
            for e in edges:
                text = f"{names.get(e.source or '', '?')} -[{e.descriptor}]-> "
                text += names.get(e.target or "", "?")
                self._put(
                    "edge",
                    e.key,
                    text,
                    pass_,
                    subplan,
                    qid,
                    source=e.source,
                    target=e.target,
                    provenance=e.provenance,
                )
            if not nodes and not edges:
                text = row_text(row, schema)
                self._put("row", text, text, pass_, subplan, qid)
        return len(self.elements) - before

    def _put(
        self, kind: str, key: str, text: str, pass_: int, subplan: int, qid: str, **extra: Any
    ) -> None:
        found = self.elements.get((kind, key))
        if found is None:
            self.elements[(kind, key)] = WitnessElement(
                kind, key, text, pass_, subplan, qid, **extra
            )
        elif qid != found.query and qid not in found.seen_in:
            found.seen_in.append(qid)

    def of_kind(self, kind: str) -> list[WitnessElement]:
        return [e for e in self.elements.values() if e.kind == kind]

    @property
    def nodes(self) -> list[WitnessElement]:
        return self.of_kind("node")

    @property
    def edges(self) -> list[WitnessElement]:
        return self.of_kind("edge")

    @property
    def rows(self) -> list[WitnessElement]:
        return self.of_kind("row")

    def passages(self) -> list[str]:
        """Source passage ids of the witness edges, in the order the edges were found."""
        return list(dict.fromkeys(p for e in self.edges for p in e.provenance))

    def replay(
        self, store: GraphStore, timeout_ms: int = 5000, max_rows: int = 1000
    ) -> list[ReplayResult]:
        """Re-run every stored query; ``same`` when the rows come back identical (any order)."""
        return replay_recorded(self.to_dict()["queries"], store, timeout_ms, max_rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "queries": [
                {
                    "query_id": q.id,
                    "cypher": q.cypher,
                    "params": q.params,
                    "rows": len(q.rows),
                    "digest": rows_digest(q.rows),
                }
                for q in self.queries
            ],
            "elements": [vars(e) | {"seen_in": list(e.seen_in)} for e in self.elements.values()],
        }

    def stats(self) -> dict[str, int]:
        return {
            "witness_nodes": len(self.nodes),
            "witness_edges": len(self.edges),
            "witness_rows": len(self.rows),
            "witness_queries": len(self.queries),
        }


def replay_recorded(
    queries: list[dict[str, Any]],
    store: GraphStore,
    timeout_ms: int = 5000,
    max_rows: int = 1000,
) -> list[ReplayResult]:
    """Re-run the queries of a recorded witness (``Witness.to_dict()["queries"]``); ``same``
    when the rows that come back have the recorded digest."""
    out = []
    for wq in queries:
        rec = run_cypher(
            store,
            wq["cypher"],
            wq["params"],
            timeout_ms=timeout_ms,
            max_rows=max_rows,
            purpose=f"replay {wq['query_id']}",
        )
        same = rec.error is None and rows_digest(rec.rows) == wq["digest"]
        out.append(ReplayResult(wq["query_id"], same, wq["rows"], rec.n_rows, rec.error))
    return out
