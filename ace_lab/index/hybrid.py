"""Hybrid search over ``(id, text)`` documents: exact dense + BM25, fused by weighted RRF.

Every method starts from seeds: the passages, entities or relations nearest to the question.
Dense vectors catch paraphrases, BM25 catches the rare names and numbers that multi-hop
questions hinge on, so both are run and their rankings fused by reciprocal rank fusion with the
ArcRAG settings (:mod:`ace_lab.index.fusion`).

Dense search is exact (dot products over unit vectors from :mod:`ace_lab.embed`, whose cache
makes rebuilding an index cheap) and a hybrid query over 6k passages takes under a millisecond
(``bench/hybrid_index.py``); :class:`~ace_lab.index.dense.QdrantDense` moves the dense half to a
server. A built index saves to a folder and loads without re-embedding, refusing an embedder
whose vectors would live in another space. Nothing here knows about graphs: the seed indexes
over a graph's passages, entities and relations live in :mod:`ace_lab.graph.seeds`.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ace_lab.bounded import Bounded, bounded
from ace_lab.embed import Embedder, VectorCache, embed, get_embedder
from ace_lab.index.dense import DenseBackend, NumpyDense, no_rows
from ace_lab.index.fusion import DENSE_WEIGHT, RRF_K, SPARSE_WEIGHT, rrf
from ace_lab.index.sparse import (
    DEFAULT_STOPWORDS,
    bm25s_version,
    build_bm25,
    load_bm25,
    save_bm25,
    tokenize,
    top_k,
)

#: The search modes of :meth:`HybridIndex.search`.
SearchMode = Literal["hybrid", "dense", "sparse"]
SEARCH_MODES: tuple[str, ...] = ("hybrid", "dense", "sparse")
#: Version of the on-disk layout written by :meth:`HybridIndex.save`.
FORMAT_VERSION = 1

#: Written last by :meth:`HybridIndex.save`: its presence marks a complete index folder.
META_FILE = "index.json"
_DOCS_FILE = "docs.json"
_VECTORS_FILE = "vectors.npy"
_BM25_DIR = "bm25"


class IndexMismatchError(ValueError):
    """A saved index does not fit what it is being loaded with (embedder model, format)."""


@dataclass(frozen=True)
class HybridSettings(Bounded):
    """Fusion and tokenisation settings of a :class:`HybridIndex` (saved with it).

    The defaults are ArcRAG's: dense evidence counts twice as much as lexical evidence.
    ``stopwords`` is the bm25s stopword list used for documents and queries alike.
    """

    rrf_k: int = bounded(RRF_K, lo=0, hi=10_000, help="RRF constant k in 1/(k + rank)")
    dense_weight: float = bounded(
        DENSE_WEIGHT, lo=0, hi=100, help="weight of the dense (vector) ranking in the fusion"
    )
    sparse_weight: float = bounded(
        SPARSE_WEIGHT, lo=0, hi=100, help="weight of the sparse (BM25) ranking in the fusion"
    )
    stopwords: str = bounded(
        DEFAULT_STOPWORDS, help="bm25s stopword list (a language code such as en)"
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
            retriever = build_bm25(texts, settings.stopwords)
        else:
            vectors, retriever = np.zeros((0, embedder.dim or 0), dtype=np.float32), None
        return cls(
            ids,
            texts,
            vectors,
            retriever,
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
        dense: list[tuple[np.ndarray, np.ndarray]] = [no_rows()] * len(live)
        sparse: list[tuple[np.ndarray, np.ndarray]] = [no_rows()] * len(live)
        if mode in ("hybrid", "dense"):
            texts = [queries[i] for i in live]
            qvecs = embed(texts, self.embedder, cache=self.cache, progress=progress)
            dense = self.dense_backend.search(qvecs, depth)
        if mode in ("hybrid", "sparse"):
            tokens = tokenize([queries[i] for i in live], self.settings.stopwords)
            sparse = [top_k(self._bm25, t, depth) for t in tokens]
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
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / META_FILE).unlink(missing_ok=True)
        np.save(folder / _VECTORS_FILE, self._vectors.astype(np.float16), allow_pickle=False)
        docs = {"ids": list(self._ids), "texts": list(self._texts)}
        (folder / _DOCS_FILE).write_text(json.dumps(docs, ensure_ascii=False))
        if (folder / _BM25_DIR).exists():
            shutil.rmtree(folder / _BM25_DIR)
        if self._bm25 is not None:
            save_bm25(self._bm25, folder / _BM25_DIR)
        meta = {
            "format": FORMAT_VERSION,
            "model_id": self.model_id,
            "dim": int(self._vectors.shape[1]) if self._vectors.ndim == 2 else 0,
            "count": len(self),
            "settings": asdict(self.settings),
            "bm25s_version": bm25s_version(),
        }
        (folder / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
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
        folder = Path(folder)
        meta_path = folder / META_FILE
        if not meta_path.is_file():
            raise FileNotFoundError(f"no saved index at {folder} (missing {META_FILE})")
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
        retriever = load_bm25(folder / _BM25_DIR) if meta["count"] else None
        return cls(
            docs["ids"],
            docs["texts"],
            vectors,
            retriever,
            model_id=meta["model_id"],
            embedder=embedder,
            settings=HybridSettings(**meta["settings"]),
            dense_backend=dense_backend,
            cache=cache,
        )
