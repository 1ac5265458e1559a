"""A built graph ready for query-time retrieval: tables, seed indexes and lookup maps.

Every retrieval method (HiRAG modes, GraphRAG local/global, the ACE branches, the baselines)
reads the same ``RetrievalGraph``; it is loaded once from a finished build (no LLM call) and
is read-only afterwards, so methods and parallel branches can share it across threads.

Methods that query the graph with Cypher (ArcRAG) reach the same tables as a property graph
through :attr:`RetrievalGraph.store`, opened on first use where the ``graph`` settings say
(``ACE_LAB_GRAPH_STORE``: an embedded FalkorDB by default, a FalkorDB server or Neo4j; see
:mod:`ace_lab.graph.store.url`) and closed with :meth:`RetrievalGraph.close`.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import networkx as nx

from ace_lab.config import DEFAULT_TIER, GraphSettings, Settings, load_settings
from ace_lab.embed import Embedder, get_embedder
from ace_lab.evidence import Evidence
from ace_lab.graph.seeds import SEED_KINDS, SeedIndexes, entity_text
from ace_lab.graph.tables import GraphTables
from ace_lab.index import HybridIndex
from ace_lab.retrieval.paths import BridgeIndex, bridge_index

if TYPE_CHECKING:
    from ace_lab.graph.store import GraphStore


@dataclass(frozen=True)
class NodeInfo:
    id: str
    label: str
    name: str
    type: str
    description: str
    level: int
    source_ids: tuple[str, ...]


@dataclass(frozen=True)
class EdgeInfo:
    id: str
    source: str
    target: str
    type: str
    predicate: str
    description: str
    weight: float
    source_ids: tuple[str, ...]


class RetrievalGraph:
    """One graph family of one slice, with its seed indexes and the maps retrieval needs."""

    def __init__(
        self,
        tables: GraphTables,
        indexes: SeedIndexes,
        *,
        name: str = "graph",
        embedder: Embedder | None = None,
        store: GraphSettings | None = None,
    ) -> None:
        self.tables = tables
        self.indexes = indexes
        self.name = name
        #: Where :attr:`store` lives (``embedded``, ``falkordb://…``, ``bolt://…``).
        self.store_settings = store or GraphSettings()
        self.embedder = embedder if embedder is not None else get_embedder()
        self.nodes: dict[str, NodeInfo] = {
            str(r.id): NodeInfo(
                str(r.id),
                str(r.label),
                str(r.name),
                str(r.type),
                str(r.description),
                int(r.level),
                tuple(r.source_ids),
            )
            for r in tables.nodes.itertuples(index=False)
        }
        self.edges: dict[str, EdgeInfo] = {
            str(r.id): EdgeInfo(
                str(r.id),
                str(r.source),
                str(r.target),
                str(r.type),
                str(r.predicate),
                str(r.description),
                float(r.weight),
                tuple(r.source_ids),
            )
            for r in tables.edges.itertuples(index=False)
        }
        self.incident: dict[str, list[EdgeInfo]] = defaultdict(list)
        for edge in self.edges.values():
            self.incident[edge.source].append(edge)
            self.incident[edge.target].append(edge)
        self._store: GraphStore | None = None
        self._store_lock = threading.Lock()

    # ------------------------------------------------------------------------- graph store
    @property
    def store(self) -> GraphStore:
        """The same tables as a Cypher property graph where :attr:`store_settings` say: by default
        a private embedded FalkorDB, started and loaded on first use (a second or so for a
        default slice); on a server, loaded once and reused while it holds these tables.
        Shared by threads."""
        with self._store_lock:
            if self._store is None:
                from ace_lab.graph.store.url import open_graph_store, parse_store_url

                url = parse_store_url(self.store_settings.store)
                password = self.store_settings.store_password
                store, close = open_graph_store(url, self.tables, self.name, password=password)
                # An embedded server process must not outlive this graph (nor the interpreter).
                self._store_finalizer = weakref.finalize(self, close)
                self._store = store
            return self._store

    @property
    def has_store(self) -> bool:
        """Whether :attr:`store` has been started (without starting it)."""
        return self._store is not None

    def close(self) -> None:
        """Stop the graph store, if one was started; the in-memory graph stays usable."""
        with self._store_lock:
            if self._store is not None:
                self._store_finalizer()
                self._store = None

    # ------------------------------------------------------------------------- loading
    @classmethod
    def load(
        cls,
        dataset: str,
        n: int,
        family: str = "hierarchical",
        *,
        model: str = DEFAULT_TIER,
        seed: int = 0,
        settings: Settings | None = None,
    ) -> RetrievalGraph:
        """A finished build of ``dataset`` (slice ``n``/``seed``) and its saved seed indexes."""
        from ace_lab.graph.build import load_graph

        settings = settings or load_settings()
        tables, out = load_graph(dataset, n, family, model=model, seed=seed, settings=settings)
        return cls.from_run_dir(out, tables=tables, settings=settings)

    @classmethod
    def from_run_dir(
        cls, out: Path | str, *, tables: GraphTables | None = None, settings: Settings | None = None
    ) -> RetrievalGraph:
        out = Path(out)
        settings = settings or load_settings()
        tables = tables if tables is not None else GraphTables.load(out / "tables")
        embedder = get_embedder(settings.embed)
        # a graph without provenance (the openie-bare view of an OpenIE build) has no passages
        kinds = SEED_KINDS if tables.provenance else tuple(k for k in SEED_KINDS if k != "passages")
        indexes = SeedIndexes.load(out / "index", embedder, kinds=kinds)
        name = f"{tables.meta.get('slice_id', out.parent.parent.name)}/{tables.meta.get('family')}"
        return cls(tables, indexes, name=name, embedder=embedder, store=settings.graph)

    # ------------------------------------------------------------------------- lookups
    def neighbours(self, node_id: str, *types: str) -> list[tuple[EdgeInfo, str]]:
        """``(edge, other end)`` of every edge at ``node_id`` (of the given types, if any)."""
        out = []
        for edge in self.incident.get(node_id, ()):
            if types and edge.type not in types:
                continue
            out.append((edge, edge.target if edge.source == node_id else edge.source))
        return out

    def search(self, kind: str, query: str, k: int) -> list[tuple[str, float]]:
        """``(id, fused score)`` of the top ``k`` items of seed index ``kind`` (hybrid RRF)."""
        index = self.indexes.get(kind)
        if index is None or k <= 0:
            return []
        return [(hit.id, hit.score) for hit in index.search(query, k=k)]

    @cached_property
    def reports_index(self) -> HybridIndex | None:
        """Hybrid index over community reports (built on first use; vectors are cached)."""
        reports = [n for n in self.nodes.values() if n.label == "Community" and n.description]
        if not reports:
            return None
        return HybridIndex.build(
            [r.id for r in reports],
            [f"{r.name}: {r.description}" for r in reports],
            self.embedder,
            progress=False,
        )

    @cached_property
    def relation_graph(self) -> nx.Graph:
        """Undirected base relations plus summary membership: the graph bridge paths run on."""
        graph = nx.Graph()
        for edge in self.edges.values():
            if edge.type in ("RELATED", "RELATION", "MEMBER_OF") or (
                edge.type not in ("MENTIONED_IN", "IN_COMMUNITY", "SYNONYM") and edge.predicate
            ):
                graph.add_edge(edge.source, edge.target, id=edge.id)
        return graph

    @cached_property
    def bridge_index(self) -> BridgeIndex:
        """What HiRAG's bridge paths run on, built on first use (see :func:`bridge_index`)."""
        return bridge_index(self.tables)

    def community_of(self, node_id: str) -> str | None:
        for edge, other in self.neighbours(node_id, "IN_COMMUNITY"):
            if edge.source == node_id:
                return other
        return None

    # --------------------------------------------------------------- evidence makers
    def entity_evidence(self, node_id: str, score: float = 0.0) -> Evidence:
        node = self.nodes[node_id]
        kind = "summary" if node.label == "Summary" else "entity"
        typed = f"{node.name} ({node.type})" if node.type and kind == "entity" else node.name
        return Evidence(
            id=node_id,
            kind=kind,
            text=entity_text(typed, node.description),
            level=node.level,
            source_ids=node.source_ids,
            score=score,
            meta={"nodes": (node_id,)},
        )

    def relation_evidence(self, edge_id: str, score: float = 0.0) -> Evidence:
        edge = self.edges[edge_id]
        src, tgt = self.nodes[edge.source].name, self.nodes[edge.target].name
        phrase = edge.predicate or "—"
        text = f"{src} {phrase} {tgt}" + (f": {edge.description}" if edge.description else "")
        return Evidence(
            id=edge_id,
            kind="relation",
            text=text,
            level=0,
            source_ids=edge.source_ids,
            score=score,
            meta={"nodes": (edge.source, edge.target)},
        )

    def passage_evidence(self, chunk_id: str, score: float = 0.0) -> Evidence:
        node = self.nodes[chunk_id]
        return Evidence(
            id=chunk_id,
            kind="passage",
            text=f"{node.name}: {node.description}" if node.name else node.description,
            level=0,
            source_ids=(chunk_id,),
            score=score,
            meta={"nodes": (chunk_id,), "title": node.name},
        )

    def report_evidence(self, community_id: str, score: float = 0.0) -> Evidence:
        node = self.nodes[community_id]
        return Evidence(
            id=community_id,
            kind="report",
            text=f"{node.name}: {node.description}",
            level=max(node.level, 1),
            source_ids=node.source_ids,
            score=score,
            meta={"nodes": (community_id,)},
        )

    def path_evidence(self, path: Sequence[str], score: float = 0.0) -> Evidence:
        """A bridge path rendered hop by hop with each hop's relation description."""
        hops = [self.nodes[path[0]].name]
        sources: list[str] = []
        for a, b in itertools.pairwise(path):
            edge = self.edges.get(self.relation_graph.edges[a, b]["id"])
            label = ""
            if edge is not None:
                label = edge.predicate or edge.description or edge.type.lower()
                sources.extend(edge.source_ids)
            hops.append(f"--[{label[:80]}]-- {self.nodes[b].name}")
        return Evidence(
            id="path:" + "|".join(path),
            kind="path",
            text=" ".join(hops),
            level=0,
            source_ids=tuple(dict.fromkeys(sources)),
            score=score,
            meta={"nodes": tuple(path), "bridge": True},
        )
