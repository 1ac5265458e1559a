"""The entity graph MOSAIC explores, as one read-only view over a ``RetrievalGraph``.

MOSAIC walks the base entity layer (the paper's LightRAG-style graph): base entities and the
fact edges between them, exactly as :class:`~ace_lab.methods.lightrag.LightRAGRetriever` sees
them (its ``is_base_entity`` / ``is_fact`` / ``degree`` are reused, not copied). On the
hierarchical family that is the layer below the summaries; on the OpenIE family it is the
phrase graph. The view adds what path scoring needs: each node's and relation's vector from the
graph's own seed indexes (no re-embedding) and query-side vectors through the shared cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np

from ace_lab.embed import embed
from ace_lab.methods.lightrag import LightRAGRetriever
from ace_lab.retrieval import EdgeInfo, RetrievalGraph


class GraphView:
    """Base entities, fact edges, degrees and vectors of one ``RetrievalGraph``."""

    def __init__(self, graph: RetrievalGraph) -> None:
        self.graph = graph
        self._lightrag = LightRAGRetriever(graph)
        # The graph is read-only, so a node's sorted fact list never changes; a racing
        # thread at worst computes the same list twice.
        self._facts: dict[str, list[tuple[EdgeInfo, str]]] = {}

    def is_entity(self, node_id: str) -> bool:
        return self._lightrag.is_base_entity(node_id)

    def is_fact(self, edge: EdgeInfo) -> bool:
        return self._lightrag.is_fact(edge)

    def facts(self, node_id: str) -> list[tuple[EdgeInfo, str]]:
        """``(fact edge, other end)`` at ``node_id``, in a stable order (edge id)."""
        cached = self._facts.get(node_id)
        if cached is not None:
            return cached
        out = [
            (e, o) for e, o in self.graph.neighbours(node_id) if o != node_id and self.is_fact(e)
        ]
        self._facts[node_id] = sorted(out, key=lambda eo: eo[0].id)
        return self._facts[node_id]

    def degree(self, node_id: str) -> int:
        return self._lightrag.degree[node_id]

    @cached_property
    def max_log_degree(self) -> float:
        top = max(self._lightrag.degree.values(), default=0)
        return float(np.log1p(max(top, 1)))

    @cached_property
    def max_log_mentions(self) -> float:
        """log(1 + the most passages any base entity is mentioned in): specificity's scale."""
        counts = [len(n.source_ids) for n in self.graph.nodes.values() if self.is_entity(n.id)]
        return float(np.log1p(max(max(counts, default=1), 1)))

    def name(self, node_id: str) -> str:
        node = self.graph.nodes.get(node_id)
        return node.name if node is not None else node_id

    # ------------------------------------------------------------------ vectors
    def _rows(self, kind: str) -> tuple[dict[str, int], np.ndarray | None]:
        index = self.graph.indexes.get(kind)
        if index is None:
            return {}, None
        return {doc: i for i, doc in enumerate(index.ids)}, index.vectors

    @cached_property
    def _entity_rows(self) -> tuple[dict[str, int], np.ndarray | None]:
        return self._rows("entities")

    @cached_property
    def _relation_rows(self) -> tuple[dict[str, int], np.ndarray | None]:
        return self._rows("relations")

    @cached_property
    def _passage_rows(self) -> tuple[dict[str, int], np.ndarray | None]:
        return self._rows("passages")

    def vector(self, kind: str, item_id: str) -> np.ndarray | None:
        """The unit vector the seed index ``kind`` holds for ``item_id`` (None if absent)."""
        rows, vectors = {
            "entities": self._entity_rows,
            "relations": self._relation_rows,
            "passages": self._passage_rows,
        }[kind]
        row = rows.get(item_id)
        return None if row is None or vectors is None else vectors[row]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of query-side texts (the question, its targets) via the shared cache."""
        index = self.graph.indexes.get("entities") or self.graph.indexes.get("passages")
        cache = index.cache if index is not None else True
        return embed(list(texts), self.graph.embedder, cache=cache, progress=False)


def cosine(a: np.ndarray | None, b: np.ndarray | None) -> float:
    """Cosine of two unit vectors, clipped to [0, 1] (0 when either is missing)."""
    if a is None or b is None:
        return 0.0
    return float(min(max(float(np.dot(a, b)), 0.0), 1.0))
