"""Tests for ace_lab.index.fusion: weighted RRF arithmetic, ties, duplicates and errors."""

from __future__ import annotations

import pytest

from ace_lab.index.fusion import DENSE_WEIGHT, RRF_K, SPARSE_WEIGHT, rrf


def test_rrf_matches_hand_computation() -> None:
    dense, sparse = ["a", "b", "c"], ["c", "a", "d"]
    fused = rrf([dense, sparse], [2.0, 1.0], k=60)
    # a: 2/61 + 1/62 = 0.0327869 + 0.0161290 = 0.0489159
    # c: 2/63 + 1/61 = 0.0317460 + 0.0163934 = 0.0481394
    # b: 2/62        = 0.0322581
    # d:        1/63 = 0.0158730
    assert [doc for doc, _ in fused] == ["a", "c", "b", "d"]
    expected = {"a": 2 / 61 + 1 / 62, "c": 2 / 63 + 1 / 61, "b": 2 / 62, "d": 1 / 63}
    for doc, score in fused:
        assert score == pytest.approx(expected[doc], abs=1e-12)
    assert fused[0][1] == pytest.approx(0.0489159, abs=1e-7)


def test_rrf_weights_change_the_order() -> None:
    dense, sparse = ["a", "b", "c"], ["c", "a", "d"]
    # Sparse weighted up: c: 1/63 + 2/61 = 0.048660 > a: 1/61 + 2/62 = 0.048651,
    # and d: 2/63 = 0.031746 now beats b: 1/62 = 0.016129.
    swapped = [doc for doc, _ in rrf([dense, sparse], [1.0, 2.0], k=60)]
    assert swapped == ["c", "a", "d", "b"]
    # Zero weight on sparse: the dense order, with sparse-only "d" at score zero, last.
    assert [doc for doc, _ in rrf([dense, sparse], [1.0, 0.0])] == ["a", "b", "c", "d"]


def test_rrf_ties_duplicates_and_errors() -> None:
    assert rrf([["y"], ["x"]], [1.0, 1.0]) == [("x", 1 / 61), ("y", 1 / 61)]  # tie: by id
    assert rrf([["a", "a", "b"]], [1.0], k=0) == [("a", 1.0), ("b", 1 / 3)]  # best rank counts
    assert rrf([], []) == []
    with pytest.raises(ValueError, match="weights"):
        rrf([["a"]], [1.0, 2.0])
    with pytest.raises(ValueError, match="k must be >= 0"):
        rrf([["a"]], [1.0], k=-1)


def test_default_weights_are_arcrags() -> None:
    assert (RRF_K, DENSE_WEIGHT, SPARSE_WEIGHT) == (60, 2.0, 1.0)
