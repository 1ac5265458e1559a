"""Tests for ace_lab.graph.index: RRF arithmetic, hybrid search with the real offline MiniLM,
save/load without re-embedding, seed indexes over a graph, and the Qdrant dense backend."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ace_lab.embed import (
    Embedder,
    SentenceTransformerEmbedder,
    VectorCache,
    cosine_top_k,
    embed,
)
from ace_lab.graph.index import (
    HybridIndex,
    HybridSettings,
    IndexMismatchError,
    NumpyDense,
    QdrantDense,
    SeedIndexes,
    build_seed_indexes,
    rrf,
    seed_documents,
)
from ace_lab.graph.tables import GraphTables

TOY = Path(__file__).resolve().parents[1] / "data" / "toy" / "corpus.json"

SMALL = {
    "d1": "The committee approved the zymurgy grant for the brewing laboratory.",
    "d2": "A kitten was sleeping on the rug near the fireplace.",
    "d3": "Quarterly revenue rose by eight percent thanks to strong exports.",
    "d4": "The river flooded the valley after a week of heavy storms.",
    "d5": "The orchestra performed a symphony by a little-known composer.",
    "d6": "Researchers measured the melting point of the new alloy.",
}


class CountingEmbedder:
    """Wraps an embedder, recording every text it is asked to encode."""

    def __init__(self, inner: Embedder, model_id: str | None = None) -> None:
        self.inner = inner
        self.model_id = model_id or inner.model_id
        self.dim = inner.dim
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self.inner.encode(texts)

    @property
    def encoded(self) -> list[str]:
        return [text for call in self.calls for text in call]


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    """One real MiniLM for the whole file: loading it is the slow part."""
    return SentenceTransformerEmbedder()


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> VectorCache:
    return VectorCache(tmp_path_factory.mktemp("index-cache") / "embeddings.sqlite")


@pytest.fixture(scope="module")
def toy() -> list[dict[str, str]]:
    return json.loads(TOY.read_text())


@pytest.fixture(scope="module")
def toy_index(minilm: Embedder, cache: VectorCache, toy: list[dict[str, str]]) -> HybridIndex:
    ids = [r["id"] for r in toy]
    texts = [r["text"] for r in toy]
    return HybridIndex.build(ids, texts, minilm, progress=False, cache=cache)


# --- RRF -------------------------------------------------------------------------------------


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


# --- hybrid search ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_index(minilm: Embedder, cache: VectorCache) -> HybridIndex:
    return HybridIndex.build(list(SMALL), list(SMALL.values()), minilm, progress=False, cache=cache)


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


def test_edge_cases(minilm: Embedder, cache: VectorCache, small_index: HybridIndex) -> None:
    assert small_index.search("the of and", mode="sparse") == []  # stopwords only
    assert small_index.search("zymurgy", k=0) == []
    with pytest.raises(ValueError, match="mode"):
        small_index.search("zymurgy", mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="duplicate"):
        HybridIndex.build(["a", "a"], ["x", "y"], minilm, progress=False, cache=cache)
    empty = HybridIndex.build([], [], minilm, progress=False, cache=cache)
    assert len(empty) == 0
    assert empty.search("anything") == []
    assert empty.search_many(["a", "b"], mode="sparse") == [[], []]


# --- save / load -------------------------------------------------------------------------------


def test_save_load_round_trip_does_not_embed_documents(
    minilm: Embedder, toy: list[dict[str, str]], tmp_path: Path
) -> None:
    ids = [r["id"] for r in toy]
    texts = [r["text"] for r in toy]
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


def test_empty_index_round_trip(minilm: Embedder, cache: VectorCache, tmp_path: Path) -> None:
    HybridIndex.build([], [], minilm, progress=False, cache=cache).save(tmp_path / "e")
    loaded = HybridIndex.load(tmp_path / "e", minilm, cache=cache)
    assert len(loaded) == 0 and loaded.search("x") == []


# --- seed indexes ------------------------------------------------------------------------------


def _tiny_graph(with_relations: bool = True) -> GraphTables:
    nodes = [
        {"id": "c1", "label": "Chunk", "name": "Ilse Marrin", "description": "Ilse Marrin was an "
         "inventor who co-founded the Varrowmere Lantern Works in 1889."},
        {"id": "c2", "label": "Chunk", "name": "Sende Observatory", "description": "The Sende "
         "Observatory on Cairn Hill was founded by the astronomer Petra Abernast."},
        {"id": "e1", "label": "Person", "name": "Ilse Marrin", "description": "an inventor"},
        {"id": "e2", "label": "Entity", "name": "Varrowmere Lantern Works", "description": ""},
        {"id": "e3", "label": "Entity", "name": "Petra Abernast",
         "description": "astronomer who founded the Sende Observatory"},
        {"id": "k1", "label": "Community", "name": "Lanterns", "description": "lantern makers"},
    ]  # fmt: skip
    edges = [
        {"id": "r1", "source": "e1", "target": "e2", "type": "RELATED", "predicate": "co-founded"},
        {"id": "r2", "source": "e3", "target": "c2", "type": "RELATED",
         "description": "directed for forty years"},
        {"id": "r3", "source": "e2", "target": "e1", "type": "RELATED", "predicate": "employed",
         "description": "as director"},
        {"id": "m1", "source": "c1", "target": "e1", "type": "MENTIONS"},
    ]  # fmt: skip
    return GraphTables.from_records(nodes, edges if with_relations else [])


def test_seed_documents_texts() -> None:
    docs = seed_documents(_tiny_graph())
    assert docs["passages"][0] == ["c1", "c2"]
    assert docs["passages"][1][0].startswith("Ilse Marrin was an inventor")
    assert docs["entities"] == (
        ["e1", "e2", "e3"],
        [
            "Ilse Marrin: an inventor",
            "Varrowmere Lantern Works",
            "Petra Abernast: astronomer who founded the Sende Observatory",
        ],
    )
    assert docs["relations"] == (
        ["r1", "r2", "r3"],
        [
            "Ilse Marrin co-founded Varrowmere Lantern Works",
            "Petra Abernast directed for forty years Sende Observatory",
            "Varrowmere Lantern Works employed Ilse Marrin: as director",
        ],
    )


def test_seed_indexes_build_search_save_load(
    minilm: Embedder, cache: VectorCache, tmp_path: Path
) -> None:
    seeds = build_seed_indexes(_tiny_graph(), minilm, progress=False, cache=cache)
    assert seeds.passages is not None and seeds.entities is not None
    assert seeds.relations is not None
    assert seeds.passages.ids == ("c1", "c2")
    assert seeds.entities.search("Abernast", k=1)[0].id == "e3"
    assert seeds.relations.search("who founded the lantern company", k=1)[0].id == "r1"

    seeds.save(tmp_path / "seeds")
    loaded = SeedIndexes.load(tmp_path / "seeds", minilm, cache=cache)
    for kind in ("passages", "entities", "relations"):
        before, after = seeds.get(kind), loaded.get(kind)
        assert before is not None and after is not None
        assert after.ids == before.ids
        assert after.search("observatory founder", k=3) == before.search("observatory founder", k=3)

    # A graph without relations: that index is None, and a re-save drops the stale folder.
    bare = build_seed_indexes(
        _tiny_graph(with_relations=False), minilm, progress=False, cache=cache
    )
    assert bare.relations is None
    bare.save(tmp_path / "seeds")
    assert not (tmp_path / "seeds" / "relations").exists()
    assert SeedIndexes.load(tmp_path / "seeds", minilm, cache=cache).relations is None


# --- Qdrant backend -----------------------------------------------------------------------------


def test_qdrant_dense_matches_numpy(
    minilm: Embedder, cache: VectorCache, toy: list[dict[str, str]], toy_index: HybridIndex
) -> None:
    from qdrant_client import QdrantClient

    queries = [
        "Who co-founded the lantern company?",
        "a battery in a glass jar",
        "flood on the river",
        "first university to admit women",
    ]
    qvecs = embed(queries, minilm, cache=cache, progress=False)
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

    ids = [r["id"] for r in toy]
    texts = [r["text"] for r in toy]
    with_qdrant = HybridIndex.build(
        ids,
        texts,
        minilm,
        progress=False,
        cache=cache,
        dense_backend=QdrantDense(QdrantClient(":memory:"), "toy-hybrid"),
    )
    for query in queries:
        got = [h.id for h in with_qdrant.search(query, k=3)]
        assert got == [h.id for h in toy_index.search(query, k=3)]
