"""Tests for ace_lab.embed.encode: embed() reuses the cache, dedupes, batches, keeps order."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ace_lab.embed import SentenceTransformerEmbedder, VectorCache, embed
from tests.support.embedders import CountingEmbedder


def test_second_call_hits_cache(minilm: SentenceTransformerEmbedder, tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "e.sqlite")
    counting = CountingEmbedder(minilm)
    texts = ["alpha particle", "beta decay", "gamma ray"]
    first = embed(texts, counting, cache=cache, progress=False)
    assert counting.encoded == texts
    second = embed(texts, counting, cache=cache, progress=False)
    assert len(counting.calls) == 1
    np.testing.assert_array_equal(first, second)
    third = embed([*texts, "delta wing"], counting, cache=cache, progress=False)
    assert counting.calls[-1] == ["delta wing"]
    np.testing.assert_array_equal(third[:3], first)


def test_duplicates_encoded_once_and_order_preserved(
    minilm: SentenceTransformerEmbedder,
) -> None:
    counting = CountingEmbedder(minilm)
    texts = ["river bank", "savings bank", "river bank", "oak tree", "savings bank"]
    vecs = embed(texts, counting, cache=False, batch_size=2, progress=False)
    assert sorted(counting.encoded) == sorted(set(texts))
    assert [len(call) for call in counting.calls] == [2, 1]
    assert vecs.shape == (5, 384) and vecs.dtype == np.float32
    singles = minilm.encode(["river bank", "savings bank", "oak tree"])
    np.testing.assert_allclose(vecs[[0, 1, 3]], singles, atol=1e-5)
    np.testing.assert_array_equal(vecs[0], vecs[2])
    np.testing.assert_array_equal(vecs[1], vecs[4])


def test_empty_input(minilm: SentenceTransformerEmbedder) -> None:
    assert embed([], minilm, cache=False).shape == (0, 384)
    assert minilm.encode([]).shape == (0, 384)
