"""Retrieve: query rewrite, search phrases, hybrid search, anchors, gap analysis, chunk scope.

Algorithm 1, lines 3–9. The question is rewritten once before the loop (:func:`rewrite_query`);
each pass asks the model for search phrases (:func:`search_phrases`) and searches each one in
the hybrid index (dense + BM25, RRF k = 60, weights 2 : 1) of the store that accompanies the
graph: the passage store when edges carry passage provenance, else the triple store, whose hits
are passed on as hints. Anchors are the graph nodes the hits name: nodes touching a hit (an edge
whose provenance is a hit passage, or a hit passage node; or an end of a hit triple) whose name
matches the phrase. Gap analysis is deterministic (no LLM call): the phrases that found no
anchor. On chunk-backed graphs the hit passage ids are the scope ``$chunk_ids`` that later
queries are confined to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from ace_lab.arc.budget import Budget
from ace_lab.arc.execute import run_cypher
from ace_lab.arc.schema import StoreSchema, q
from ace_lab.arc.seek import by_provenance, edge_sources
from ace_lab.arc.steps import ArcAnchor, ArcRetrieval
from ace_lab.graph.names import bounded_list, bounded_str
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

#: Index hits per phrase (the paper's per-corpus retrieval depth; one value for every graph).
TOP_K = 5
#: Most phrases used per pass.
MAX_PHRASES = 6
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "at",
        "by",
        "for",
        "from",
        "in",
        "is",
        "of",
        "on",
        "or",
        "the",
        "to",
        "was",
        "were",
        "what",
        "which",
        "who",
    ]
)


class Rewrite(BaseModel):
    query: bounded_str(600)


class Phrases(BaseModel):
    phrases: bounded_list(str, 12) = Field(default_factory=list)


def rewrite_query(llm: LLM, query: str) -> tuple[str, bool]:
    """The rewritten question and whether the model's reply fell back (to ``query``)."""
    result = llm.json(
        load_prompt("arc_rewrite").messages(query=query),
        Rewrite,
        tag="arc.rewrite",
        default=Rewrite(query=query),
        max_tokens=200,
    )
    text = result.value.query.strip()
    return (text or query), result.fallback or not text


def search_phrases(llm: LLM, query: str) -> tuple[list[str], bool]:
    """Search phrases for ``query`` (fallback: the query itself as the one phrase)."""
    result = llm.json(
        load_prompt("arc_phrases").messages(query=query),
        Phrases,
        tag="arc.phrases",
        default=Phrases(phrases=[query]),
        max_tokens=200,
    )
    phrases = list(dict.fromkeys(p.strip() for p in result.value.phrases if p and p.strip()))
    if not phrases:
        return [query], True
    return phrases[:MAX_PHRASES], result.fallback


def tokens(text: str) -> set[str]:
    return {t for t in re.findall(r"\w+", text.lower()) if t not in _STOP}


def names_phrase(name: str, phrase: str) -> bool:
    """Whether a node called ``name`` is what ``phrase`` names (word overlap, either way)."""
    a, b = tokens(name), tokens(phrase)
    if not a or not b:
        return False
    return a <= b or b <= a or len(a & b) / len(a | b) >= 0.5


@dataclass(frozen=True)
class Retrieval:
    """One pass's retrieval: phrases, hits per phrase, anchors, gaps, scope and hints."""

    phrases: tuple[str, ...]
    store: str  # "passages" or "relations": which text store seeded the pass
    hits: dict[str, list[tuple[str, float]]]
    anchors: tuple[ArcAnchor, ...]
    gaps: tuple[str, ...]
    chunk_ids: tuple[str, ...]
    hints: tuple[str, ...]

    @property
    def anchor_keys(self) -> list[str]:
        return [a.key for a in self.anchors]

    def recorded(self, pass_index: int, query: str, phrases_fallback: bool) -> ArcRetrieval:
        """The trace's payload of this retrieval (pass ``pass_index``, for ``query``)."""
        return ArcRetrieval(
            pass_index=pass_index,
            query=query,
            phrases=self.phrases,
            store=self.store,
            hits={p: tuple(tuple(h) for h in hits) for p, hits in self.hits.items()},
            anchors=self.anchors,
            gaps=self.gaps,
            chunk_ids=self.chunk_ids,
            hints=self.hints,
            phrases_fallback=phrases_fallback,
        )


def _node(schema: StoreSchema) -> str:
    return f"{schema.node_id('a')} AS key, {schema.node_text('a')} AS text, labels(a) AS labels"


def anchor_query(
    graph: Any, schema: StoreSchema, ids: list[str], *, scan: bool = False
) -> tuple[str, dict[str, Any]]:
    """The query for the non-passage nodes at an edge whose provenance holds one of ``ids``,
    and its parameters: started from those nodes (:func:`~ace_lab.arc.seek.by_provenance`),
    or, with ``scan`` or where they cannot be known, from a scan of every node (same rows,
    same order)."""
    match = f"MATCH (a)-[r]-() WHERE {schema.scope('r', 'ids')} AND {schema.not_passage('a')} "
    match += f"RETURN DISTINCT {_node(schema)}"
    start = None if scan else by_provenance(graph, schema, ids)
    if start is None:
        return match, {"ids": ids}
    return start[0] + match, {"ids": ids, "nodes": start[1]}


def triple_query(
    graph: Any, schema: StoreSchema, ids: list[str], *, scan: bool = False
) -> tuple[str, dict[str, Any]]:
    """The query for the hit triples ``ids`` (edges whose key is one) with both ends, and its
    parameters: started from their source nodes (:func:`~ace_lab.arc.seek.edge_sources`), or
    from a scan, as :func:`anchor_query`."""
    b_node = f"{schema.node_id('b')} AS bkey, {schema.node_text('b')} AS btext"
    match = (
        f"MATCH (a)-[r]->(b) WHERE r.{q(schema.edge_key or '')} IN $ids RETURN {_node(schema)}, "
        f"{schema.descriptor('r')} AS rho, {b_node}, labels(b) AS blabels"
    )
    start = None if scan else edge_sources(graph, schema, ids)
    if start is None:
        return match, {"ids": ids}
    return start[0] + match, {"ids": ids, "nodes": start[1]}


def _candidates(
    graph: Any, schema: StoreSchema, ids: list[str], budget: Budget, passages: bool
) -> tuple[list[dict[str, Any]], list[str]]:
    """Nodes touching the hits (``key``, ``text``, ``labels``), and triple hints."""
    store, rows, hints = graph.store, [], []
    node = _node(schema)
    kw = {"timeout_ms": budget.timeout_ms, "max_rows": budget.max_rows}
    if passages:
        if schema.provenance_property:
            cypher, params = anchor_query(graph, schema, ids)
            rows += run_cypher(store, cypher, params, purpose="anchors", **kw).rows
        if schema.passage_label and schema.key:
            cypher = (
                f"MATCH (a)--(c:{q(schema.passage_label)}) WHERE c.{q(schema.key)} IN $ids "
                f"AND {schema.not_passage('a')} RETURN DISTINCT {node}"
            )
            rows += run_cypher(store, cypher, {"ids": ids}, purpose="anchors", **kw).rows
        return rows, hints
    if schema.edge_key:
        cypher, params = triple_query(graph, schema, ids)
        for row in run_cypher(store, cypher, params, purpose="anchors", **kw).rows:
            hints.append(f"{row['text']} -[{row['rho']}]-> {row['btext']}")
            rows.append({k: row[k] for k in ("key", "text", "labels")})
            rows.append({"key": row["bkey"], "text": row["btext"], "labels": row["blabels"]})
    return rows, hints


def retrieve(
    graph: Any, schema: StoreSchema, phrases: list[str], budget: Budget, k: int = TOP_K
) -> Retrieval:
    """Hits, anchors, gaps and scope for ``phrases`` (Cypher recorded in the open step)."""
    passages = schema.chunk_backed and graph.indexes.get("passages") is not None
    kind = "passages" if passages else "relations"
    index = graph.indexes.get(kind)
    hits: dict[str, list[tuple[str, float]]] = {}
    anchors: dict[str, ArcAnchor] = {}
    gaps: list[str] = []
    hints: list[str] = []
    found = index.search_many(phrases, k=k) if index is not None else [[] for _ in phrases]
    for phrase, phrase_hits in zip(phrases, found, strict=True):
        hits[phrase] = [(h.id, round(h.score, 5)) for h in phrase_hits]
        ids = [h.id for h in phrase_hits]
        rows, phrase_hints = _candidates(graph, schema, ids, budget, passages) if ids else ([], [])
        hints.extend(h for h in phrase_hints if h not in hints)
        named = [
            r for r in rows if r.get("key") is not None and names_phrase(str(r["text"]), phrase)
        ]
        for row in named:
            key = str(row["key"])
            anchors.setdefault(key, ArcAnchor(key, str(row["text"]), tuple(row["labels"]), phrase))
        if not named:
            gaps.append(phrase)
    chunk_ids = [i for ph in phrases for i, _ in hits[ph]] if passages else []
    return Retrieval(
        phrases=tuple(phrases),
        store=kind,
        hits=hits,
        anchors=tuple(anchors.values()),
        gaps=tuple(gaps),
        chunk_ids=tuple(dict.fromkeys(chunk_ids)),
        hints=tuple(hints),
    )
