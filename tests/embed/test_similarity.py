"""Tests for ace_lab.embed.similarity: exact cosine top-k against brute force."""

from __future__ import annotations

import numpy as np

from ace_lab.embed import cosine_top_k


def _unit_rows(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    rows = rng.standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_cosine_top_k_matches_brute_force() -> None:
    rng = np.random.default_rng(0)
    matrix, queries = _unit_rows(rng, 300, 16), _unit_rows(rng, 7, 16)
    idx, scores = cosine_top_k(queries, matrix, 5)
    sims = queries @ matrix.T
    brute = np.argsort(-sims, axis=1)[:, :5]
    np.testing.assert_array_equal(idx, brute)
    np.testing.assert_allclose(scores, np.take_along_axis(sims, brute, axis=1), rtol=1e-6)
    assert idx.shape == scores.shape == (7, 5)

    one_idx, one_scores = cosine_top_k(queries[0], matrix, 3)
    np.testing.assert_array_equal(one_idx, brute[0, :3])
    assert one_scores.shape == (3,)

    all_idx, _ = cosine_top_k(queries, matrix[:4], 10)  # k above the row count is clipped
    np.testing.assert_array_equal(all_idx, np.argsort(-(queries @ matrix[:4].T), axis=1))
    assert cosine_top_k(queries, matrix, 0)[0].shape == (7, 0)
