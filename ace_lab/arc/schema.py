"""``S_G``: the graph's schema read by introspection, with what ArcRAG infers from samples.

Nothing about the graph is written by hand. ``CALL db.labels()``, ``db.relationshipTypes()``
and ``db.propertyKeys()`` give the names; counts and small samples then tell

- the *identifier* key: the node property whose values are the ids the accompanying text store
  uses for its documents (so index hits can be found in the graph);
- the *text* key: the short, mostly distinct string property that names nodes;
- where relations live: in relationship types, or in an edge property (a short free-text
  value that varies within one type and does not repeat the endpoints' names);
- provenance: an edge property whose values are passage ids of the text store (the graph is
  then *chunk-backed*), and the label of the passage nodes, if passages are nodes.

:func:`introspect` runs the queries (each recorded in the open trace step);
:func:`schema_for` caches the result per graph. :meth:`StoreSchema.render` is what prompts see.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ace_lab.arc.execute import run_cypher
from ace_lab.graph.store import GraphStore
from ace_lab.graph.store.load_plan import cypher_name

#: Rows sampled to infer keys; enough to see a property's shape, cheap on any graph.
SAMPLE = 300
#: Longest average value of a naming or descriptor property (longer ones are prose).
SHORT_TEXT = 80
_TIMEOUT_MS = 20_000
#: Most distinct (label, type, label) hops read for the patterns grammar.
HOPS = 5_000


def q(name: str) -> str:
    """A discovered label, type or property as a quoted Cypher identifier."""
    return cypher_name(name)


@dataclass(frozen=True)
class StoreSchema:
    """What introspection found: names with counts, per-label/type keys, and the inferences."""

    labels: tuple[tuple[str, int], ...]
    rel_types: tuple[tuple[str, int], ...]
    property_keys: tuple[str, ...]
    node_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    edge_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    signatures: tuple[tuple[str, str, str, int], ...] = ()
    hops: tuple[tuple[str, str, str], ...] = ()  # every (label, type, label) the graph holds
    key: str | None = None
    edge_key: str | None = None
    text_key: str | None = None
    relation_property: str | None = None
    provenance_property: str | None = None
    provenance_is_list: bool = True
    passage_label: str | None = None

    @property
    def chunk_backed(self) -> bool:
        """Whether edges point to source passages (the graph's provenance decides)."""
        return self.provenance_property is not None

    def node_id(self, var: str) -> str:
        return f"{var}.{q(self.key)}" if self.key else f"id({var})"

    def node_text(self, var: str) -> str:
        return f"{var}.{q(self.text_key)}" if self.text_key else self.node_id(var)

    def descriptor(self, var: str) -> str:
        """Cypher for edge ``var``'s relation descriptor ``ρ(e)``."""
        if self.relation_property is None:
            return f"type({var})"
        p = f"{var}.{q(self.relation_property)}"
        return f"CASE WHEN {p} IS NULL OR {p} = '' THEN type({var}) ELSE {p} END"

    def scope(self, var: str, param: str = "chunk_ids") -> str:
        """A predicate keeping edge ``var`` inside the retrieved passages (``$chunk_ids``)."""
        if self.provenance_property is None:
            return "true"
        p = f"{var}.{q(self.provenance_property)}"
        if self.provenance_is_list:
            return f"any(x IN coalesce({p}, []) WHERE x IN ${param})"
        return f"{p} IN ${param}"

    def not_passage(self, var: str) -> str:
        return f"NOT {var}:{q(self.passage_label)}" if self.passage_label else "true"

    def render(self) -> str:
        """The compact schema every agent prompt carries (the same text for every question)."""
        lines = ["Node labels (count): " + ", ".join(f"{n} ({c})" for n, c in self.labels)]
        lines.append(
            "Relationship types (count): " + ", ".join(f"{n} ({c})" for n, c in self.rel_types)
        )
        for label, keys in sorted(self.node_keys.items()):
            lines.append(f"Properties of ({label}): {', '.join(keys)}")
        for rel, keys in sorted(self.edge_keys.items()):
            lines.append(f"Properties of [{rel}]: {', '.join(keys)}")
        if self.signatures:
            shown = ", ".join(f"({a})-[{r}]->({b}) ×{c}" for a, r, b, c in self.signatures[:30])
            lines.append(f"Patterns: {shown}")
        ident = f"property {self.key}" if self.key else "id()"
        lines.append(f"Node identifier: {ident}; node names: property {self.text_key or ident}")
        if self.relation_property:
            lines.append(
                f"Relations: free text in the edge property {self.relation_property} (the same "
                "relation may be worded in several ways); relationship types are generic."
            )
        else:
            lines.append("Relations: the relationship type is the relation.")
        if self.provenance_property:
            kind = "a list of passage ids" if self.provenance_is_list else "a passage id"
            lines.append(
                f"Provenance: edge property {self.provenance_property} holds {kind}. Keep "
                f"edges inside the retrieved passages with: {self.scope('r')}"
            )
        if self.passage_label:
            lines.append(f"Passage nodes: label {self.passage_label} (source text, not entities).")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "labels": dict(self.labels),
            "rel_types": dict(self.rel_types),
            "property_keys": list(self.property_keys),
            "key": self.key,
            "edge_key": self.edge_key,
            "text_key": self.text_key,
            "relation_property": self.relation_property,
            "provenance_property": self.provenance_property,
            "passage_label": self.passage_label,
            "chunk_backed": self.chunk_backed,
            "signatures": [list(s) for s in self.signatures],
        }


def _read(
    store: GraphStore, cypher: str, params: dict | None = None, max_rows: int = SAMPLE
) -> list[dict[str, Any]]:
    rec = run_cypher(
        store, cypher, params, timeout_ms=_TIMEOUT_MS, max_rows=max_rows, purpose="introspect"
    )
    return rec.rows


def _matching_key(
    store: GraphStore, keys: Sequence[str], ids: Sequence[str], edge: bool
) -> str | None:
    """The property whose values are ``ids`` (most matches wins), on nodes or edges."""
    if not ids:
        return None
    best, best_n = None, 0
    pattern = "()-[n]->()" if edge else "(n)"
    for key in keys:
        rows = _read(
            store,
            f"MATCH {pattern} WHERE n.{q(key)} IN $ids RETURN count(*) AS c",
            {"ids": list(ids)},
        )
        n = int(rows[0]["c"]) if rows else 0
        if n > best_n:
            best, best_n = key, n
    return best


def _text_key(nodes: list[dict[str, Any]], exclude: set[str]) -> str | None:
    """The short string property present on most nodes with the most distinct values."""
    best, best_score = None, 0.0
    keys = {k for n in nodes for k in n if not k.startswith("_")} - exclude
    for key in sorted(keys):
        values = [n.get(key) for n in nodes]
        texts = [v for v in values if isinstance(v, str) and v.strip()]
        if not texts or sum(map(len, texts)) / len(texts) > SHORT_TEXT:
            continue
        score = len(set(texts)) / max(len(nodes), 1)
        if score > best_score:
            best, best_score = key, score
    return best


def _relation_property(
    edges: list[dict[str, Any]], types: set[str], exclude: set[str]
) -> str | None:
    """A short free-text edge property that varies within a type and is not the endpoints'.

    Identifiers are not descriptors: the identifier key is excluded, and so is any property
    whose values are all distinct and never contain a space.
    """
    best, best_n = None, 1
    keys = {k for e in edges for k in e["r"] if not k.startswith("_")} - exclude
    for key in sorted(keys):
        per_type: dict[str, set[str]] = {}
        texts = []
        for e in edges:
            v = e["r"].get(key)
            if not isinstance(v, str) or not v.strip() or v in types:
                continue
            ends = [str(e.get("s") or ""), str(e.get("o") or "")]
            if any(x and x.lower() in v.lower() for x in ends):
                continue  # a sentence about the endpoints, not a descriptor
            texts.append(v)
            per_type.setdefault(e["r"].get("_type", ""), set()).add(v)
        if not texts or sum(map(len, texts)) / len(texts) > SHORT_TEXT:
            continue
        if len(set(texts)) == len(texts) and not any(" " in t for t in texts):
            continue
        n = max(len(v) for v in per_type.values())
        if n > best_n:
            best, best_n = key, n
    return best


def _provenance(edges: list[dict[str, Any]], passage_ids: set[str]) -> tuple[str | None, bool]:
    """The edge property most of whose values are passage ids, and whether it is a list."""
    hits: Counter[tuple[str, bool]] = Counter()
    seen: Counter[str] = Counter()
    for e in edges:
        for key, v in e["r"].items():
            if key.startswith("_"):
                continue
            values = v if isinstance(v, list) else [v]
            if values and all(isinstance(x, str) for x in values):
                seen[key] += 1
                if values and all(x in passage_ids for x in values):
                    hits[(key, isinstance(v, list))] += 1
    for (key, is_list), n in hits.most_common():
        if n >= 0.5 * seen[key]:
            return key, is_list
    return None, True


def introspect(
    store: GraphStore,
    passage_ids: Sequence[str] = (),
    edge_ids: Sequence[str] = (),
    node_ids: Sequence[str] = (),
) -> StoreSchema:
    """Read ``S_G`` from ``store``. ``passage_ids``, ``edge_ids`` and ``node_ids`` are document
    ids of the text stores that accompany the graph (a sample suffices): the properties holding
    them are the identifier keys, and the nodes holding passage ids are the passages."""
    base = store.schema()
    labels = _read(store, "MATCH (n) RETURN labels(n)[0] AS l, count(*) AS c ORDER BY c DESC")
    rels = _read(store, "MATCH ()-[r]->() RETURN type(r) AS t, count(*) AS c ORDER BY c DESC")
    sigs = _read(
        store,
        "MATCH (a)-[r]->(b) RETURN labels(a)[0] AS a, type(r) AS t, "
        "labels(b)[0] AS b, count(*) AS c ORDER BY c DESC LIMIT 60",
    )
    # every signature, for the patterns grammar (the prompts show the most frequent above:
    # reading more of them there would reorder ties and change every prompt)
    held = _read(
        store,
        "MATCH (a)-[r]->(b) RETURN DISTINCT labels(a)[0] AS a, type(r) AS t, labels(b)[0] AS b",
        max_rows=HOPS,
    )
    node_keys: dict[str, tuple[str, ...]] = {}
    for row in labels[:40]:
        sample = _read(store, f"MATCH (n:{q(row['l'])}) RETURN n LIMIT 5")
        node_keys[row["l"]] = tuple(sorted({k for s in sample for k in s["n"] if k[0] != "_"}))
    edge_keys: dict[str, tuple[str, ...]] = {}
    for row in rels[:40]:
        sample = _read(store, f"MATCH ()-[r:{q(row['t'])}]->() RETURN r LIMIT 5")
        edge_keys[row["t"]] = tuple(sorted({k for s in sample for k in s["r"] if k[0] != "_"}))
    ids = [str(i) for i in passage_ids][:20]
    key = _matching_key(store, base.property_keys, ids, edge=False)
    if key is None:
        names = [str(i) for i in node_ids][:20]
        key = _matching_key(store, base.property_keys, names, edge=False)
    passage_label = None
    if key and ids:
        found = _read(
            store,
            f"MATCH (n) WHERE n.{q(key)} IN $ids RETURN labels(n)[0] AS l, "
            "count(*) AS c ORDER BY c DESC LIMIT 1",
            {"ids": ids},
        )
        passage_label = found[0]["l"] if found else None
    edge_key = _matching_key(store, base.property_keys, [str(i) for i in edge_ids][:20], True)
    skip = f"WHERE NOT n:{q(passage_label)} " if passage_label else ""
    nodes = [r["n"] for r in _read(store, f"MATCH (n) {skip}RETURN n LIMIT {SAMPLE}")]
    text_key = _text_key(nodes, {key} if key else set())
    ends = f"WHERE NOT a:{q(passage_label)} AND NOT b:{q(passage_label)} " if passage_label else ""
    name = (lambda v: f"{v}.{q(text_key)}") if text_key else (lambda v: "''")
    edges = _read(
        store,
        f"MATCH (a)-[r]->(b) {ends}RETURN {name('a')} AS s, r, {name('b')} AS o LIMIT {SAMPLE}",
    )
    rel_prop = _relation_property(edges, {r["t"] for r in rels}, {k for k in (key, edge_key) if k})
    all_edges = [{"r": r["r"]} for r in _read(store, f"MATCH ()-[r]->() RETURN r LIMIT {SAMPLE}")]
    prov, prov_list = _provenance(edges + all_edges, {str(i) for i in passage_ids})
    return StoreSchema(
        labels=tuple((r["l"], int(r["c"])) for r in labels),
        rel_types=tuple((r["t"], int(r["c"])) for r in rels),
        property_keys=tuple(base.property_keys),
        node_keys=node_keys,
        edge_keys=edge_keys,
        signatures=tuple((r["a"], r["t"], r["b"], int(r["c"])) for r in sigs),
        hops=tuple((r["a"], r["t"], r["b"]) for r in held if r["a"] and r["t"] and r["b"]),
        key=key,
        edge_key=edge_key,
        text_key=text_key,
        relation_property=rel_prop,
        provenance_property=prov,
        provenance_is_list=prov_list,
        passage_label=passage_label,
    )


_CACHE: weakref.WeakKeyDictionary[Any, StoreSchema] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def schema_for(graph: Any) -> tuple[StoreSchema, bool]:
    """``(S_G, cached)`` of a ``RetrievalGraph``: introspected once per graph, then reused."""
    with _LOCK:
        if graph in _CACHE:
            return _CACHE[graph], True
        # every id, not a sample: an edge counts as chunk-backed only when all of its
        # provenance values are passage ids, and a 20-id sample of a 200-passage store would
        # match one edge in ten (introspect samples where a sample suffices)
        ids = {}
        for kind in ("passages", "relations", "entities"):
            index = graph.indexes.get(kind)
            ids[kind] = tuple(index.ids) if index is not None else ()
        schema = introspect(graph.store, ids["passages"], ids["relations"], ids["entities"])
        _CACHE[graph] = schema
        return schema, False
