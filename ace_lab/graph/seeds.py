"""Seed documents of a graph and the hybrid indexes over them (passages, entities, relations).

Every method starts from seeds: the passages, entities or relations nearest to the question.
This module turns a :class:`~ace_lab.graph.tables.GraphTables` into the three document sets
(:func:`seed_documents`) and builds, saves and loads one :class:`~ace_lab.index.HybridIndex`
per set (:class:`SeedIndexes`). The search itself is not graph-specific and lives in
:mod:`ace_lab.index`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ace_lab.embed import Embedder, VectorCache, get_embedder
from ace_lab.index import DenseBackend, HybridIndex, HybridSettings
from ace_lab.index.hybrid import META_FILE

if TYPE_CHECKING:
    from ace_lab.graph.tables import GraphTables

#: The three seed indexes over a graph, also their subfolder names.
SEED_KINDS: tuple[str, ...] = ("passages", "entities", "relations")
#: Names the saved indexes; written by :meth:`SeedIndexes.save`.
_SEEDS_FILE = "seeds.json"

#: Edge types that organise the graph rather than state a fact; never relation seeds.
STRUCTURAL_EDGE_TYPES = ("MENTIONED_IN", "MEMBER_OF", "IN_COMMUNITY", "SYNONYM")

#: Makes the dense backend of one seed index from its kind, e.g.
#: ``lambda kind: QdrantDense(client, f"musique-{kind}")``.
BackendFactory = Callable[[str], DenseBackend]


def entity_text(name: str, description: str) -> str:
    """``"name: description"``, or the bare name: the name is what questions mention."""
    return f"{name}: {description}" if description else name


def relation_text(source: str, predicate: str, description: str, target: str) -> str:
    """A relation as one phrase: ``"source predicate target"``, the description in the middle
    when there is no predicate, and appended after a colon when there are both (the triple
    stays readable and the description still adds its words)."""
    if predicate and description:
        return f"{source} {predicate} {target}: {description}"
    return f"{source} {predicate or description} {target}"


def seed_documents(tables: GraphTables) -> dict[str, tuple[list[str], list[str]]]:
    """``(ids, texts)`` of the passages, entities and relations of a ``GraphTables``.

    Passages are ``Chunk`` nodes (their text is the description); entities are all other nodes
    except ``Community``; relations are edges with a predicate or a description, leaving out
    the structural types (chunk membership, hierarchy and community links, synonyms), which
    state no fact of the corpus and would only add noise.
    """
    nodes, edges = tables.nodes, tables.edges
    chunks = nodes[nodes["label"] == "Chunk"]
    entities = nodes[~nodes["label"].isin(["Chunk", "Community"])]
    names = {str(i): (str(n) or str(i)) for i, n in zip(nodes["id"], nodes["name"], strict=True)}
    rel_ids: list[str] = []
    rel_texts: list[str] = []
    for row in edges[~edges["type"].isin(STRUCTURAL_EDGE_TYPES)].itertuples(index=False):
        predicate, description = str(row.predicate).strip(), str(row.description).strip()
        if not (predicate or description):
            continue
        rel_ids.append(str(row.id))
        rel_texts.append(
            relation_text(names[str(row.source)], predicate, description, names[str(row.target)])
        )
    return {
        "passages": (
            [str(i) for i in chunks["id"]],
            [str(d) for d in chunks["description"]],
        ),
        "entities": (
            [str(i) for i in entities["id"]],
            [
                entity_text(str(n), str(d))
                for n, d in zip(entities["name"], entities["description"], strict=True)
            ],
        ),
        "relations": (rel_ids, rel_texts),
    }


@dataclass(frozen=True)
class SeedIndexes:
    """The three seed indexes of a graph; an index is ``None`` when the graph has no such items."""

    passages: HybridIndex | None
    entities: HybridIndex | None
    relations: HybridIndex | None

    def get(self, kind: str) -> HybridIndex | None:
        if kind not in SEED_KINDS:
            raise KeyError(f"unknown seed kind {kind!r}; use one of {SEED_KINDS}")
        return getattr(self, kind)

    def save(self, folder: str | Path) -> Path:
        """Each present index in its own subfolder, plus ``seeds.json`` naming them."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        present = {}
        for kind in SEED_KINDS:
            index = self.get(kind)
            present[kind] = index is not None
            if index is not None:
                index.save(folder / kind)
            elif (folder / kind / META_FILE).is_file():
                shutil.rmtree(folder / kind)  # a stale index from an earlier save
        (folder / _SEEDS_FILE).write_text(json.dumps(present, indent=2) + "\n")
        return folder

    @classmethod
    def load(
        cls,
        folder: str | Path,
        embedder: Embedder | None = None,
        *,
        dense_backends: BackendFactory | None = None,
        cache: VectorCache | bool = True,
        kinds: Collection[str] = SEED_KINDS,
    ) -> SeedIndexes:
        """The saved indexes of ``kinds`` (the others are ``None``: a view of a graph without
        passages reads its build's entity and relation indexes only)."""
        folder = Path(folder)
        manifest = folder / _SEEDS_FILE
        if not manifest.is_file():
            raise FileNotFoundError(f"no saved seed indexes at {folder} (missing {_SEEDS_FILE})")
        present = json.loads(manifest.read_text())
        embedder = embedder if embedder is not None else get_embedder()
        loaded: dict[str, HybridIndex | None] = {}
        for kind in SEED_KINDS:
            backend = dense_backends(kind) if dense_backends is not None else None
            loaded[kind] = (
                HybridIndex.load(folder / kind, embedder, dense_backend=backend, cache=cache)
                if present.get(kind) and kind in kinds
                else None
            )
        return cls(**loaded)


def build_seed_indexes(
    tables: GraphTables,
    embedder: Embedder | None = None,
    progress: bool = True,
    *,
    settings: HybridSettings | None = None,
    dense_backends: BackendFactory | None = None,
    cache: VectorCache | bool = True,
) -> SeedIndexes:
    """Hybrid indexes over the passages, entities and relations of ``tables`` (a GraphTables)."""
    embedder = embedder if embedder is not None else get_embedder()
    built: dict[str, HybridIndex | None] = {}
    for kind, (ids, texts) in seed_documents(tables).items():
        if not ids:
            built[kind] = None
            continue
        built[kind] = HybridIndex.build(
            ids,
            texts,
            embedder,
            progress,
            settings=settings,
            dense_backend=dense_backends(kind) if dense_backends is not None else None,
            cache=cache,
        )
    return SeedIndexes(**built)
