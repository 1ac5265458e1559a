"""Tests for ace_lab.index.dense: exact numpy search, the Qdrant backend, the top-row helpers."""

from __future__ import annotations

import numpy as np
import pytest

from ace_lab.embed import Embedder, VectorCache, cosine_top_k, embed
from ace_lab.index import HybridIndex
from ace_lab.index.dense import DenseBackend, NumpyDense, QdrantDense, no_rows, top_rows


@pytest.fixture(scope="module")
def toy_index(
    minilm: Embedder, vector_cache: VectorCache, toy_records: list[dict[str, str]]
) -> HybridIndex:
    ids = [r["id"] for r in toy_records]
    texts = [r["text"] for r in toy_records]
    return HybridIndex.build(ids, texts, minilm, progress=False, cache=vector_cache)


def test_top_rows_breaks_ties_by_row() -> None:
    scores = np.asarray([0.5, 0.9, 0.5, 0.1, 0.9], dtype=np.float32)
    rows, top = top_rows(scores, 4)  # a cut inside a tie is argpartition's choice: avoid one
    assert rows.tolist() == [1, 4, 0, 2] and rows.dtype == np.int64
    assert top.tolist() == pytest.approx([0.9, 0.9, 0.5, 0.5])
    assert top_rows(scores, 2)[0].tolist() == [1, 4]
    assert top_rows(scores, 10)[0].tolist() == [1, 4, 0, 2, 3]  # k above the size: all rows
    assert top_rows(scores, 0)[0].tolist() == []
    empty_rows, empty_scores = no_rows()
    assert len(empty_rows) == len(empty_scores) == 0


def test_numpy_dense_is_a_backend_and_handles_empty() -> None:
    dense = NumpyDense()
    assert isinstance(dense, DenseBackend)
    queries = np.eye(2, dtype=np.float32)
    assert [len(rows) for rows, _ in dense.search(queries, 3)] == [0, 0]  # nothing indexed
    dense.index(np.asarray([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]], dtype=np.float32))
    (rows_x, scores_x), (rows_y, _) = dense.search(queries, 2)
    assert rows_x.tolist() == [0, 1] and rows_y.tolist() == [2, 1]
    assert scores_x.tolist() == pytest.approx([1.0, 0.6])
    assert [len(rows) for rows, _ in dense.search(queries, 0)] == [0, 0]


def test_qdrant_dense_matches_numpy(
    minilm: Embedder,
    vector_cache: VectorCache,
    toy_records: list[dict[str, str]],
    toy_index: HybridIndex,
) -> None:
    from qdrant_client import QdrantClient

    queries = [
        "Who co-founded the lantern company?",
        "a battery in a glass jar",
        "flood on the river",
        "first university to admit women",
    ]
    qvecs = embed(queries, minilm, cache=vector_cache, progress=False)
    numpy_dense = NumpyDense()
    numpy_dense.index(toy_index.vectors)
    qdrant = QdrantDense(QdrantClient(":memory:"), "toy", batch_size=5)  # several upserts
    qdrant.index(toy_index.vectors)
    exact_rows, exact_scores = cosine_top_k(qvecs, toy_index.vectors, 5)
    for (ni, ns), (qi, qs), er, es in zip(
        numpy_dense.search(qvecs, 5), qdrant.search(qvecs, 5), exact_rows, exact_scores, strict=True
    ):
        assert list(ni[:3]) == list(er[:3])  # NumpyDense is exact search
        np.testing.assert_allclose(ns, es, atol=1e-5)
        assert list(qi[:3]) == list(ni[:3])
        np.testing.assert_allclose(qs, ns, atol=1e-4)

    ids = [r["id"] for r in toy_records]
    texts = [r["text"] for r in toy_records]
    with_qdrant = HybridIndex.build(
        ids,
        texts,
        minilm,
        progress=False,
        cache=vector_cache,
        dense_backend=QdrantDense(QdrantClient(":memory:"), "toy-hybrid"),
    )
    for query in queries:
        got = [h.id for h in with_qdrant.search(query, k=3)]
        assert got == [h.id for h in toy_index.search(query, k=3)]
