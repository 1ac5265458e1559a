"""Exact cosine search over unit vectors: :func:`cosine_top_k`, chunked to bound memory."""

from __future__ import annotations

import numpy as np

#: Query rows scored at once by :func:`cosine_top_k`, bounding its memory to chunk x matrix rows.
_TOPK_CHUNK = 256


def cosine_top_k(
    query_vecs: np.ndarray, matrix: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` rows of ``matrix`` by dot product with each query, best first.

    Both sides are expected to be unit vectors (as :func:`embed` returns), so the dot product is
    the cosine. Returns ``(indices, scores)`` of shape ``(q, k')`` with ``k' = min(k, len)``,
    or 1-D arrays for a 1-D query. Queries are scored in chunks to bound memory.
    """
    queries = np.asarray(query_vecs, dtype=np.float32)
    single = queries.ndim == 1
    queries = queries[None, :] if single else queries
    matrix = np.asarray(matrix, dtype=np.float32)
    k = max(0, min(int(k), matrix.shape[0]))
    indices = np.zeros((queries.shape[0], k), dtype=np.int64)
    scores = np.zeros((queries.shape[0], k), dtype=np.float32)
    if k > 0:
        for start in range(0, queries.shape[0], _TOPK_CHUNK):
            stop = start + _TOPK_CHUNK
            indices[start:stop], scores[start:stop] = _top_k_rows(queries[start:stop] @ matrix.T, k)
    return (indices[0], scores[0]) if single else (indices, scores)


def _top_k_rows(sims: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the ``k`` largest entries in descending order (argpartition, then sort k)."""
    if k < sims.shape[1]:
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    else:
        part = np.broadcast_to(np.arange(sims.shape[1]), sims.shape).copy()
    part_scores = np.take_along_axis(sims, part, axis=1)
    order = np.argsort(-part_scores, axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1), np.take_along_axis(part_scores, order, axis=1)
