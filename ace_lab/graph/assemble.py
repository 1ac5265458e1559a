"""Per-chunk triples to GraphTables rows: the assembly step the OpenIE and typed families share.

Both families extract, chunk by chunk, entity mentions and (subject, predicate, object) triples;
both turn them into the same shape of graph:

- one Chunk node per chunk (first, in chunk order), so every entity keeps a path to its text;
- one node per entity id (``ent:<normalised name>``, sorted), named by its most frequent surface
  form and, where the extractor typed it, labelled by the type it was given most often (ties:
  the first seen); untyped entities are ``Entity`` nodes;
- a ``MENTIONED_IN`` edge from each entity to every chunk it was extracted from;
- one relation edge per (subject, merge key, object), in first-seen order, whose ``source_ids``
  are the chunks that stated it and whose weight counts them.

What differs is only the relation vocabulary: OpenIE has one ``RELATION`` type and merges on the
case-folded free-text predicate, the typed family uses the schema relation as type, predicate
and key. Callers feed mentions and triples in chunk order; counts and ties depend on that order.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from ace_lab.data import Chunk
from ace_lab.graph.names import chunk_node, entity_id, mention_edges, short_hash

#: Label of an entity the extractor gave no type.
UNTYPED_LABEL = "Entity"


class TripleAssembler:
    """Collects entity mentions and triples chunk by chunk, then emits nodes and edges."""

    def __init__(self) -> None:
        self.surfaces: dict[str, Counter[str]] = defaultdict(Counter)
        self.types: dict[str, Counter[str]] = defaultdict(Counter)
        self.sources: dict[str, set[str]] = defaultdict(set)
        self.relations: dict[tuple[str, str, str], dict[str, Any]] = {}

    def mention(self, name: str, chunk_id: str, kind: str | None = None) -> str:
        """Count one mention of ``name`` in ``chunk_id`` (typed ``kind`` if given); its id.

        The id is "" (and nothing is counted) when the name normalises to nothing.
        """
        eid = entity_id(name)
        if eid:
            if kind is not None:
                self.types[eid][kind] += 1
            self.surfaces[eid][name] += 1
            self.sources[eid].add(chunk_id)
        return eid

    def triple(
        self,
        chunk_id: str,
        subject: str,
        predicate: str,
        obj: str,
        *,
        rel_type: str,
        key: str,
        subject_type: str | None = None,
        object_type: str | None = None,
    ) -> None:
        """One triple stated in ``chunk_id``: both ends are mentions, the relation one edge.

        ``key`` decides which triples between the same ends are one edge. A triple with an end
        that normalises to nothing, or whose ends are one entity, is skipped entirely.
        """
        s_id, o_id = entity_id(subject), entity_id(obj)
        if not s_id or not o_id or s_id == o_id:
            return
        self.mention(subject, chunk_id, subject_type)
        self.mention(obj, chunk_id, object_type)
        edge_key = (s_id, key, o_id)
        edge = self.relations.setdefault(
            edge_key,
            {
                "id": "rel:" + short_hash(*edge_key),
                "source": s_id,
                "target": o_id,
                "type": rel_type,
                "predicate": predicate,
                "description": f"{subject} {predicate} {obj}",
                "source_ids": set(),
            },
        )
        edge["source_ids"].add(chunk_id)

    def rows(self, chunks: Sequence[Chunk]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Chunk and entity nodes; ``MENTIONED_IN`` then relation edges (see the module doc)."""
        nodes = [chunk_node(c) for c in chunks]
        edges: list[dict[str, Any]] = []
        for eid in sorted(self.surfaces):
            node = {
                "id": eid,
                "label": UNTYPED_LABEL,
                "name": self.surfaces[eid].most_common(1)[0][0],
                "source_ids": sorted(self.sources[eid]),
            }
            if kinds := self.types.get(eid):
                node["label"] = node["type"] = kinds.most_common(1)[0][0]
            nodes.append(node)
            edges.extend(mention_edges(eid, self.sources[eid]))
        for edge in self.relations.values():
            edges.append(
                edge
                | {
                    "weight": float(len(edge["source_ids"])),
                    "source_ids": sorted(edge["source_ids"]),
                }
            )
        return nodes, edges
