"""Hybrid search over passages, entities and relations: exact dense + BM25, fused by weighted RRF.

Every method starts from seeds: the passages, entities or relations nearest to the question.
Dense vectors catch paraphrases, BM25 catches the rare names and numbers that multi-hop
questions hinge on and that MiniLM smears, so both are run and their rankings fused by
reciprocal rank fusion with the ArcRAG settings (``k = 60``, dense weight 2, sparse weight 1).

Dense search is exact (dot products over unit vectors from :mod:`ace_lab.embed`, whose cache
makes rebuilding an index cheap): a corpus of a few thousand passages needs nothing approximate,
and a hybrid query over 6k passages takes under a millisecond (``bench/hybrid_index.py``).
:class:`QdrantDense` puts the dense half on a Qdrant server instead when a collection is shared
between processes or grows large. A built index saves to a folder and loads without
re-embedding, refusing an embedder whose vectors would live in another space.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np

from ace_lab.embed import Embedder, VectorCache, embed, get_embedder

if TYPE_CHECKING:
    from ace_lab.graph.tables import GraphTables

#: The search modes of :meth:`HybridIndex.search`.
SearchMode = Literal["hybrid", "dense", "sparse"]
SEARCH_MODES: tuple[str, ...] = ("hybrid", "dense", "sparse")
#: Version of the on-disk layout written by :meth:`HybridIndex.save`.
FORMAT_VERSION = 1
#: The three seed indexes over a graph, also their subfolder names.
SEED_KINDS: tuple[str, ...] = ("passages", "entities", "relations")

_META_FILE = "index.json"
_DOCS_FILE = "docs.json"
_VECTORS_FILE = "vectors.npy"
_BM25_DIR = "bm25"
_SEEDS_FILE = "seeds.json"
#: Queries scored at once by :class:`NumpyDense` (memory: chunk x rows float32 scores).
_QUERY_CHUNK = 64


class IndexMismatchError(ValueError):
    """A saved index does not fit what it is being loaded with (embedder model, format)."""


# --------------------------------------------------------------------------------------------
# Fusion
# --------------------------------------------------------------------------------------------


def rrf(
    rankings: Sequence[Sequence[str]], weights: Sequence[float], k: int = 60
) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion: ``score(d) = sum_i w_i / (k + rank_i(d))``, rank from 1.

    RRF only needs ranks, so cosine similarities and BM25 scores, which live on unrelated
    scales, fuse without calibration. A document missing from a ranking gets nothing from it;
    a repeated id counts at its best rank. Sorted by score, then id, so ties are deterministic.
    """
    if len(rankings) != len(weights):
        raise ValueError(f"{len(rankings)} rankings but {len(weights)} weights")
    if k < 0:
        raise ValueError(f"rrf k must be >= 0, got {k}")
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        seen: set[str] = set()
        for rank, doc in enumerate(ranking, start=1):
            if doc in seen:
                continue
            seen.add(doc)
            scores[doc] = scores.get(doc, 0.0) + float(weight) / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


# --------------------------------------------------------------------------------------------
# Settings and results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HybridSettings:
    """Fusion and tokenisation settings of a :class:`HybridIndex` (saved with it).

    The defaults are ArcRAG's: dense evidence counts twice as much as lexical evidence.
    ``stopwords`` is the bm25s stopword list used for documents and queries alike.
    """

    rrf_k: int = 60
    dense_weight: float = 2.0
    sparse_weight: float = 1.0
    stopwords: str = "en"

    def __post_init__(self) -> None:
        if self.rrf_k < 0:
            raise ValueError(f"rrf_k must be >= 0, got {self.rrf_k}")
        if self.dense_weight < 0 or self.sparse_weight < 0:
            raise ValueError(
                f"weights must be >= 0, got dense={self.dense_weight} sparse={self.sparse_weight}"
            )


@dataclass(frozen=True)
class Hit:
    """One search result.

    ``score`` is the fused RRF score in hybrid mode, the cosine in dense mode and the BM25
    score in sparse mode. The ranks (from 1) say which retriever found the document among its
    candidates, which is what ablations of the fusion need; ``None`` means it did not (or that
    retriever was not run).
    """

    id: str
    score: float
    dense_rank: int | None = None
    sparse_rank: int | None = None


# --------------------------------------------------------------------------------------------
# Dense backends
# --------------------------------------------------------------------------------------------


@runtime_checkable
class DenseBackend(Protocol):
    """Nearest-neighbour search over the index's unit vectors, addressed by row number.

    :meth:`index` receives all rows at once (row ``i`` is document ``i``); :meth:`search`
    returns, per query, row indices and cosine scores, best first, at most ``k`` of them.
    """

    name: str

    def index(self, vectors: np.ndarray) -> None: ...

    def search(self, queries: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]: ...


class NumpyDense:
    """Exact cosine search with numpy, no server: the default.

    Scores come from ``np.vecdot`` rather than a BLAS matrix product (as in
    :func:`ace_lab.embed.cosine_top_k`): on the project's small machines the LLM server keeps the
    cores busy, and waking OpenBLAS's worker threads for one query then costs ~8-12 ms, while
    vecdot stays single-threaded at ~0.2 ms per query over 6k x 384. It also gives bit-identical
    scores whatever the batch, so :meth:`HybridIndex.search` and ``search_many`` agree exactly.
    """

    name = "numpy"

    def __init__(self) -> None:
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def index(self, vectors: np.ndarray) -> None:
        self._matrix = np.ascontiguousarray(vectors, dtype=np.float32)

    def search(self, queries: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        queries = np.asarray(queries, dtype=np.float32).reshape(len(queries), -1)
        if len(self._matrix) == 0 or k <= 0:
            return [_no_rows() for _ in range(len(queries))]
        out = []
        for start in range(0, len(queries), _QUERY_CHUNK):  # bounds the (chunk, rows) scores
            chunk = queries[start : start + _QUERY_CHUNK]
            sims = np.vecdot(chunk[:, None, :], self._matrix[None, :, :])
            out.extend(_top_rows(row, k) for row in sims)
        return out

    def __repr__(self) -> str:
        return f"NumpyDense({self._matrix.shape[0]} rows)"


def _top_rows(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the ``k`` largest scores, best first, ties by row (deterministic)."""
    k = min(k, len(scores))
    everything = np.arange(len(scores))
    rows = np.argpartition(-scores, k - 1)[:k] if 0 < k < len(scores) else everything[:k]
    rows = rows[np.lexsort((rows, -scores[rows]))]
    return rows.astype(np.int64), scores[rows].astype(np.float32)


class QdrantDense:
    """The dense half on Qdrant: ``client`` is a ``qdrant_client.QdrantClient`` the caller made.

    Use a server (``QdrantClient(url="http://localhost:6333")``) for real corpora. The local
    modes (``QdrantClient(":memory:")`` or ``path=...``) are a pure-Python brute force, orders
    of magnitude slower than :class:`NumpyDense`: they are for tests only.

    Points are the index's row numbers, so the collection holds vectors only. :meth:`index`
    recreates the collection, unless ``reuse`` is set and it already holds exactly as many
    points of the right width (a server collection surviving from an earlier run).
    """

    name = "qdrant"

    def __init__(
        self, client: Any, collection: str, batch_size: int = 256, reuse: bool = False
    ) -> None:
        self.client = client
        self.collection = collection
        self.batch_size = max(1, batch_size)
        self.reuse = reuse
        self._size = 0

    def _reusable(self, rows: int, dim: int) -> bool:
        if not (self.reuse and self.client.collection_exists(self.collection)):
            return False
        vectors = self.client.get_collection(self.collection).config.params.vectors
        size = getattr(vectors, "size", None)
        count = self.client.count(self.collection, exact=True).count
        return size == dim and count == rows

    def index(self, vectors: np.ndarray) -> None:
        from qdrant_client import models

        vectors = np.asarray(vectors, dtype=np.float32)
        rows, dim = vectors.shape
        self._size = rows
        if rows == 0 or self._reusable(rows, dim):
            return
        if self.client.collection_exists(self.collection):
            self.client.delete_collection(self.collection)
        self.client.create_collection(
            self.collection,
            vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE),
        )
        for start in range(0, rows, self.batch_size):
            stop = min(rows, start + self.batch_size)
            batch = models.Batch(ids=list(range(start, stop)), vectors=vectors[start:stop].tolist())
            self.client.upsert(self.collection, points=batch, wait=True)

    def search(self, queries: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        from qdrant_client import models

        queries = np.asarray(queries, dtype=np.float32).reshape(len(queries), -1)
        limit = min(k, self._size)
        if limit <= 0 or len(queries) == 0:
            return [_no_rows() for _ in range(len(queries))]
        requests = [
            models.QueryRequest(query=q.tolist(), limit=limit, with_payload=False) for q in queries
        ]
        responses = self.client.query_batch_points(self.collection, requests=requests)
        out = []
        for response in responses:
            points = response.points
            out.append(
                (
                    np.asarray([int(p.id) for p in points], dtype=np.int64),
                    np.asarray([p.score for p in points], dtype=np.float32),
                )
            )
        return out

    def __repr__(self) -> str:
        return f"QdrantDense({self.collection!r}, {self._size} rows)"


def _no_rows() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)


# --------------------------------------------------------------------------------------------
# BM25
# --------------------------------------------------------------------------------------------


def _tokenize(texts: Sequence[str], stopwords: str) -> list[list[str]]:
    """bm25s tokens (lower-cased words of 2+ characters, stopwords removed), as strings.

    Strings rather than ids so that queries map onto the saved vocabulary by lookup, and the
    placeholder token bm25s gives an empty text is dropped (it must not match empty documents).
    """
    import bm25s

    if not texts:
        return []
    tokens = bm25s.tokenize(list(texts), stopwords=stopwords, return_ids=False, show_progress=False)
    return [[token for token in doc if token] for doc in tokens]


def _build_bm25(texts: Sequence[str], stopwords: str) -> Any:
    import bm25s

    retriever = bm25s.BM25()
    retriever.index([doc or [""] for doc in _tokenize(texts, stopwords)], show_progress=False)
    return retriever


def _sparse_top(bm25: Any, tokens: list[str], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` documents with a positive BM25 score, best first, ties by row.

    A zero score means no query term occurs in the document: such rows are not evidence, and
    letting them into the fusion would hand out RRF credit in arbitrary order.
    """
    ids = bm25.get_tokens_ids(tokens)
    if not ids or k <= 0:
        return _no_rows()
    scores = np.asarray(bm25.get_scores_from_ids(ids), dtype=np.float32)
    positive = np.flatnonzero(scores > 0)
    rows, top = _top_rows(scores[positive], k)
    return positive[rows], top


# --------------------------------------------------------------------------------------------
# The hybrid index
# --------------------------------------------------------------------------------------------


class HybridIndex:
    """Dense + BM25 search over ``(id, text)`` documents, fused by weighted RRF.

    Build with :meth:`build` or :meth:`load`. Searching is read-only and safe from threads.
    Query vectors go through :func:`ace_lab.embed.embed` with the index's ``cache``, so the
    questions of a benchmark are encoded once across methods and runs.
    """

    def __init__(
        self,
        ids: Sequence[str],
        texts: Sequence[str],
        vectors: np.ndarray,
        bm25: Any,
        *,
        model_id: str,
        embedder: Embedder,
        settings: HybridSettings,
        dense_backend: DenseBackend | None = None,
        cache: VectorCache | bool = True,
    ) -> None:
        """Assemble an index from its parts; use :meth:`build` or :meth:`load` instead."""
        self._ids = tuple(str(i) for i in ids)
        self._texts = tuple(texts)
        if len(self._ids) != len(self._texts) or len(self._ids) != len(vectors):
            raise ValueError(
                f"{len(self._ids)} ids, {len(self._texts)} texts, {len(vectors)} vectors"
            )
        self._vectors = np.asarray(vectors, dtype=np.float32)
        self._vectors.setflags(write=False)
        self._bm25 = bm25
        self.model_id = model_id
        self.embedder = embedder
        self.settings = settings
        self.cache = cache
        self.dense_backend: DenseBackend = (
            dense_backend if dense_backend is not None else NumpyDense()
        )
        self.dense_backend.index(self._vectors)
        self._position = {doc_id: i for i, doc_id in enumerate(self._ids)}

    # ---------------------------------------------------------------- construction
    @classmethod
    def build(
        cls,
        ids: Sequence[str],
        texts: Sequence[str],
        embedder: Embedder | None = None,
        progress: bool = True,
        *,
        settings: HybridSettings | None = None,
        dense_backend: DenseBackend | None = None,
        cache: VectorCache | bool = True,
        batch_size: int = 64,
    ) -> HybridIndex:
        """Embed ``texts`` (through the vector cache) and index them for BM25.

        ``ids`` must be unique: results are reported and fused by id.
        """
        ids = [str(i) for i in ids]
        texts = [str(t) for t in texts]
        if len(ids) != len(texts):
            raise ValueError(f"{len(ids)} ids but {len(texts)} texts")
        if len(set(ids)) != len(ids):
            dup = sorted(i for i, n in Counter(ids).items() if n > 1)[:5]
            raise ValueError(f"duplicate ids: {dup}")
        settings = settings or HybridSettings()
        embedder = embedder if embedder is not None else get_embedder()
        if ids:
            vectors = embed(texts, embedder, cache=cache, batch_size=batch_size, progress=progress)
            bm25 = _build_bm25(texts, settings.stopwords)
        else:
            vectors, bm25 = np.zeros((0, embedder.dim or 0), dtype=np.float32), None
        return cls(
            ids,
            texts,
            vectors,
            bm25,
            model_id=embedder.model_id,
            embedder=embedder,
            settings=settings,
            dense_backend=dense_backend,
            cache=cache,
        )

    # ----------------------------------------------------------------------- views
    @property
    def ids(self) -> tuple[str, ...]:
        return self._ids

    @property
    def texts(self) -> tuple[str, ...]:
        return self._texts

    @property
    def vectors(self) -> np.ndarray:
        """The document vectors (read-only), row ``i`` for ``ids[i]``."""
        return self._vectors

    def text(self, doc_id: str) -> str:
        return self._texts[self._position[doc_id]]

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._position

    def __repr__(self) -> str:
        return f"HybridIndex({len(self)} docs, {self.model_id!r}, dense={self.dense_backend.name})"

    # ---------------------------------------------------------------------- search
    def search(
        self, query: str, k: int = 10, mode: SearchMode = "hybrid", candidates: int = 50
    ) -> list[Hit]:
        """The ``k`` best documents for ``query``; an empty query or index gives ``[]``.

        In hybrid mode each retriever contributes its top ``max(candidates, k)`` before fusion.
        """
        return self.search_many([query], k=k, mode=mode, candidates=candidates)[0]

    def search_many(
        self,
        queries: Sequence[str],
        k: int = 10,
        mode: SearchMode = "hybrid",
        candidates: int = 50,
        progress: bool = False,
    ) -> list[list[Hit]]:
        """:meth:`search` for each query, with the query embeddings computed in one batch."""
        if mode not in SEARCH_MODES:
            raise ValueError(f"unknown search mode {mode!r}; use one of {SEARCH_MODES}")
        results: list[list[Hit]] = [[] for _ in queries]
        live = [i for i, q in enumerate(queries) if q and q.strip()]
        if not live or k <= 0 or len(self) == 0:
            return results
        depth = k if mode != "hybrid" else max(candidates, k)
        dense: list[tuple[np.ndarray, np.ndarray]] = [_no_rows()] * len(live)
        sparse: list[tuple[np.ndarray, np.ndarray]] = [_no_rows()] * len(live)
        if mode in ("hybrid", "dense"):
            texts = [queries[i] for i in live]
            qvecs = embed(texts, self.embedder, cache=self.cache, progress=progress)
            dense = self.dense_backend.search(qvecs, depth)
        if mode in ("hybrid", "sparse"):
            tokens = _tokenize([queries[i] for i in live], self.settings.stopwords)
            sparse = [_sparse_top(self._bm25, t, depth) for t in tokens]
        for slot, d, s in zip(live, dense, sparse, strict=True):
            results[slot] = self._hits(d, s, k, mode)
        return results

    def _hits(
        self,
        dense: tuple[np.ndarray, np.ndarray],
        sparse: tuple[np.ndarray, np.ndarray],
        k: int,
        mode: str,
    ) -> list[Hit]:
        dense_ids = [self._ids[r] for r in dense[0]]
        sparse_ids = [self._ids[r] for r in sparse[0]]
        if mode == "dense":
            return [
                Hit(doc, float(score), dense_rank=rank)
                for rank, (doc, score) in enumerate(zip(dense_ids, dense[1], strict=True), 1)
            ][:k]
        if mode == "sparse":
            return [
                Hit(doc, float(score), sparse_rank=rank)
                for rank, (doc, score) in enumerate(zip(sparse_ids, sparse[1], strict=True), 1)
            ][:k]
        dense_rank = {doc: rank for rank, doc in enumerate(dense_ids, 1)}
        sparse_rank = {doc: rank for rank, doc in enumerate(sparse_ids, 1)}
        fused = rrf(
            [dense_ids, sparse_ids],
            [self.settings.dense_weight, self.settings.sparse_weight],
            k=self.settings.rrf_k,
        )
        return [
            Hit(doc, score, dense_rank.get(doc), sparse_rank.get(doc)) for doc, score in fused[:k]
        ]

    # -------------------------------------------------------------------------- io
    def save(self, folder: str | Path) -> Path:
        """Write the index to ``folder``: vectors as float16 .npy (half the size of float32; the
        cosine changes by ~1e-3, far below the gaps that decide a ranking), ids/texts/settings
        as JSON, bm25s's own files. ``index.json`` is written last, so an interrupted save does
        not load."""
        import bm25s

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / _META_FILE).unlink(missing_ok=True)
        np.save(folder / _VECTORS_FILE, self._vectors.astype(np.float16), allow_pickle=False)
        docs = {"ids": list(self._ids), "texts": list(self._texts)}
        (folder / _DOCS_FILE).write_text(json.dumps(docs, ensure_ascii=False))
        if (folder / _BM25_DIR).exists():
            shutil.rmtree(folder / _BM25_DIR)
        if self._bm25 is not None:
            self._bm25.save(str(folder / _BM25_DIR), show_progress=False)
        meta = {
            "format": FORMAT_VERSION,
            "model_id": self.model_id,
            "dim": int(self._vectors.shape[1]) if self._vectors.ndim == 2 else 0,
            "count": len(self),
            "settings": asdict(self.settings),
            "bm25s_version": bm25s.__version__,
        }
        (folder / _META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
        return folder

    @classmethod
    def load(
        cls,
        folder: str | Path,
        embedder: Embedder | None = None,
        *,
        dense_backend: DenseBackend | None = None,
        cache: VectorCache | bool = True,
    ) -> HybridIndex:
        """An index saved by :meth:`save`; documents are never re-embedded.

        ``embedder`` (default :func:`get_embedder`) only encodes queries, so its ``model_id``
        must be the one the vectors were made with, else :class:`IndexMismatchError`.
        """
        import bm25s

        folder = Path(folder)
        meta_path = folder / _META_FILE
        if not meta_path.is_file():
            raise FileNotFoundError(f"no saved index at {folder} (missing {_META_FILE})")
        meta = json.loads(meta_path.read_text())
        if meta.get("format") != FORMAT_VERSION:
            raise IndexMismatchError(
                f"{meta_path}: format {meta.get('format')!r}, this code reads {FORMAT_VERSION}"
            )
        embedder = embedder if embedder is not None else get_embedder()
        if embedder.model_id != meta["model_id"]:
            raise IndexMismatchError(
                f"index at {folder} was embedded with {meta['model_id']!r}, but the embedder "
                f"is {embedder.model_id!r}: query vectors would not be comparable; rebuild the "
                "index or load it with the matching embedder"
            )
        docs = json.loads((folder / _DOCS_FILE).read_text())
        vectors = np.load(folder / _VECTORS_FILE, allow_pickle=False).astype(np.float32)
        if len(docs["ids"]) != meta["count"] or len(vectors) != meta["count"]:
            raise IndexMismatchError(f"{folder}: files disagree on the number of documents")
        bm25 = None
        if meta["count"]:
            bm25 = bm25s.BM25.load(str(folder / _BM25_DIR), show_progress=False)
        return cls(
            docs["ids"],
            docs["texts"],
            vectors,
            bm25,
            model_id=meta["model_id"],
            embedder=embedder,
            settings=HybridSettings(**meta["settings"]),
            dense_backend=dense_backend,
            cache=cache,
        )


# --------------------------------------------------------------------------------------------
# Seed indexes over a graph
# --------------------------------------------------------------------------------------------


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


#: Edge types that organise the graph rather than state a fact; never relation seeds.
STRUCTURAL_EDGE_TYPES = ("MENTIONED_IN", "MEMBER_OF", "IN_COMMUNITY", "SYNONYM")


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


#: Makes the dense backend of one seed index from its kind, e.g.
#: ``lambda kind: QdrantDense(client, f"musique-{kind}")``.
BackendFactory = Callable[[str], DenseBackend]


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
            elif (folder / kind / _META_FILE).is_file():
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
    ) -> SeedIndexes:
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
                if present.get(kind)
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
