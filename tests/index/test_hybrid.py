"""Tests for ace_lab.index.hybrid: hybrid search with the real offline MiniLM, fusion ranks,
and save/load without re-embedding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ace_lab.embed import Embedder, VectorCache
from ace_lab.index import HybridIndex, HybridSettings, IndexMismatchError
from tests.support.embedders import CountingEmbedder

SMALL = {
    "d1": "The committee approved the zymurgy grant for the brewing laboratory.",
    "d2": "A kitten was sleeping on the rug near the fireplace.",
    "d3": "Quarterly revenue rose by eight percent thanks to strong exports.",
    "d4": "The river flooded the valley after a week of heavy storms.",
    "d5": "The orchestra performed a symphony by a little-known composer.",
    "d6": "Researchers measured the melting point of the new alloy.",
}


# --- hybrid search ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_index(minilm: Embedder, vector_cache: VectorCache) -> HybridIndex:
    return HybridIndex.build(
        list(SMALL), list(SMALL.values()), minilm, progress=False, cache=vector_cache
    )


def test_rare_keyword_is_found_by_sparse_and_survives_fusion(small_index: HybridIndex) -> None:
    sparse = small_index.search("zymurgy", k=3, mode="sparse")
    assert [h.id for h in sparse] == ["d1"]  # only documents containing a query term
    assert sparse[0].sparse_rank == 1 and sparse[0].dense_rank is None
    top = small_index.search("zymurgy", k=3)[0]
    assert top.id == "d1"
    assert top.sparse_rank == 1 and top.dense_rank is not None


def test_paraphrase_is_found_by_dense(small_index: HybridIndex) -> None:
    query = "cat napping on a carpet"  # no word shared with d2
    assert small_index.search(query, mode="sparse") == []
    dense = small_index.search(query, k=2, mode="dense")
    assert dense[0].id == "d2" and dense[0].dense_rank == 1
    assert dense[0].score > dense[1].score
    hybrid = small_index.search(query, k=6)
    assert hybrid[0].id == "d2"
    assert hybrid[0].sparse_rank is None
    assert hybrid[0].score == pytest.approx(2.0 / 61)
    assert len(hybrid) == 6


def test_search_many_matches_search(small_index: HybridIndex) -> None:
    queries = ["zymurgy", "", "cat napping on a carpet", "   ", "storms over the valley"]
    many = small_index.search_many(queries, k=3)
    assert many == [small_index.search(q, k=3) for q in queries]
    assert many[1] == [] and many[3] == []


def test_candidates_limit_each_retriever(small_index: HybridIndex) -> None:
    hits = small_index.search("river storms flooded the brewing laboratory", k=1, candidates=2)
    assert len(hits) == 1
    assert all(r is None or r <= 2 for r in (hits[0].dense_rank, hits[0].sparse_rank))


def test_edge_cases(minilm: Embedder, vector_cache: VectorCache, small_index: HybridIndex) -> None:
    assert small_index.search("the of and", mode="sparse") == []  # stopwords only
    assert small_index.search("zymurgy", k=0) == []
    with pytest.raises(ValueError, match="mode"):
        small_index.search("zymurgy", mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="duplicate"):
        HybridIndex.build(["a", "a"], ["x", "y"], minilm, progress=False, cache=vector_cache)
    empty = HybridIndex.build([], [], minilm, progress=False, cache=vector_cache)
    assert len(empty) == 0
    assert empty.search("anything") == []
    assert empty.search_many(["a", "b"], mode="sparse") == [[], []]


# --- save / load -------------------------------------------------------------------------------


def test_save_load_round_trip_does_not_embed_documents(
    minilm: Embedder, toy_records: list[dict[str, str]], tmp_path: Path
) -> None:
    ids = [r["id"] for r in toy_records]
    texts = [r["text"] for r in toy_records]
    settings = HybridSettings(rrf_k=30, dense_weight=1.5, sparse_weight=1.0)
    built = HybridIndex.build(ids, texts, minilm, progress=False, cache=False, settings=settings)
    built.save(tmp_path / "idx")
    assert {p.name for p in (tmp_path / "idx").iterdir()} >= {
        "index.json",
        "docs.json",
        "vectors.npy",
        "bm25",
    }

    counter = CountingEmbedder(minilm)
    loaded = HybridIndex.load(tmp_path / "idx", counter, cache=False)
    assert counter.calls == []  # loading encodes nothing
    assert loaded.ids == built.ids and loaded.texts == built.texts
    assert loaded.settings == settings
    np.testing.assert_allclose(loaded.vectors, built.vectors, atol=1e-3)  # stored as float16

    queries = [
        "Who co-founded the lantern company?",
        "Hallow Ford",
        "comet discovered by an astronomer",
    ]
    for mode in ("hybrid", "dense", "sparse"):
        again = loaded.search_many(queries, k=5, mode=mode)
        first = built.search_many(queries, k=5, mode=mode)
        ranks = [[(h.id, h.dense_rank, h.sparse_rank) for h in hits] for hits in again]
        assert ranks == [[(h.id, h.dense_rank, h.sparse_rank) for h in hits] for hits in first]
        scores = [h.score for hits in again for h in hits]
        assert scores == pytest.approx([h.score for hits in first for h in hits], abs=1e-3)
    assert set(counter.encoded) == set(queries)  # queries only, never a document
    assert not set(counter.encoded) & set(texts)


def test_load_refuses_another_embedder_model(
    minilm: Embedder, small_index: HybridIndex, tmp_path: Path
) -> None:
    small_index.save(tmp_path / "idx")
    other = CountingEmbedder(minilm, model_id="st:some-other-model")
    with pytest.raises(IndexMismatchError, match="st:some-other-model"):
        HybridIndex.load(tmp_path / "idx", other)
    with pytest.raises(FileNotFoundError):
        HybridIndex.load(tmp_path / "nowhere", minilm)


def test_empty_index_round_trip(
    minilm: Embedder, vector_cache: VectorCache, tmp_path: Path
) -> None:
    HybridIndex.build([], [], minilm, progress=False, cache=vector_cache).save(tmp_path / "e")
    loaded = HybridIndex.load(tmp_path / "e", minilm, cache=vector_cache)
    assert len(loaded) == 0 and loaded.search("x") == []
