"""Hybrid retrieval over ``(id, text)`` documents: dense + BM25, fused by weighted RRF.

A services-layer package that knows nothing of graphs or datasets: :mod:`~ace_lab.index.fusion`
(reciprocal rank fusion and its default weights), :mod:`~ace_lab.index.dense` (exact numpy or
Qdrant nearest neighbours), :mod:`~ace_lab.index.sparse` (BM25 with bm25s) and
:mod:`~ace_lab.index.hybrid` (the index that combines them, saved and loaded without
re-embedding). Seed indexes over a graph live in :mod:`ace_lab.graph.seeds`.
"""

from ace_lab.index.dense import DenseBackend, NumpyDense, QdrantDense
from ace_lab.index.fusion import DENSE_WEIGHT, RRF_K, SPARSE_WEIGHT, rrf
from ace_lab.index.hybrid import (
    FORMAT_VERSION,
    SEARCH_MODES,
    Hit,
    HybridIndex,
    HybridSettings,
    IndexMismatchError,
    SearchMode,
)

__all__ = [
    "DENSE_WEIGHT",
    "FORMAT_VERSION",
    "RRF_K",
    "SEARCH_MODES",
    "SPARSE_WEIGHT",
    "DenseBackend",
    "Hit",
    "HybridIndex",
    "HybridSettings",
    "IndexMismatchError",
    "NumpyDense",
    "QdrantDense",
    "SearchMode",
    "rrf",
]
