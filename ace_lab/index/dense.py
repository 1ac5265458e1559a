"""Dense nearest-neighbour backends over unit vectors: exact numpy search or a Qdrant collection.

A backend is addressed by row number (row ``i`` is document ``i``), so it holds vectors only and
the caller keeps ids and texts. Dense search is exact by default: a corpus of a few thousand
passages needs nothing approximate. :class:`QdrantDense` puts the vectors on a Qdrant server
instead when a collection is shared between processes or grows large.

:func:`top_rows` and :func:`no_rows` are the ranking helpers every backend (and the BM25 side in
:mod:`ace_lab.index.sparse`) uses, so that ties break the same way everywhere.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

#: Queries scored at once by :class:`NumpyDense` (memory: chunk x rows float32 scores).
_QUERY_CHUNK = 64


def top_rows(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the ``k`` largest scores, best first, ties by row (deterministic)."""
    k = min(k, len(scores))
    everything = np.arange(len(scores))
    rows = np.argpartition(-scores, k - 1)[:k] if 0 < k < len(scores) else everything[:k]
    rows = rows[np.lexsort((rows, -scores[rows]))]
    return rows.astype(np.int64), scores[rows].astype(np.float32)


def no_rows() -> tuple[np.ndarray, np.ndarray]:
    """The empty ``(rows, scores)`` result."""
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)


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
            return [no_rows() for _ in range(len(queries))]
        out = []
        for start in range(0, len(queries), _QUERY_CHUNK):  # bounds the (chunk, rows) scores
            chunk = queries[start : start + _QUERY_CHUNK]
            sims = np.vecdot(chunk[:, None, :], self._matrix[None, :, :])
            out.extend(top_rows(row, k) for row in sims)
        return out

    def __repr__(self) -> str:
        return f"NumpyDense({self._matrix.shape[0]} rows)"


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
        from qdrant_client import models  # deferred: an optional server backend

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
            return [no_rows() for _ in range(len(queries))]
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
