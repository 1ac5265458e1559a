"""Tests for ace_lab.embed: real offline MiniLM, the SQLite vector cache, batching, exact search."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from ace_lab.config import EmbedSettings
from ace_lab.embed import (
    Embedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    VectorCache,
    cosine_top_k,
    embed,
    embed_threads,
    get_embedder,
    make_embedder,
)


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    """One real MiniLM for the whole file: loading it is the slow part."""
    return SentenceTransformerEmbedder()


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


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


# --- real MiniLM ----------------------------------------------------------------------------


def test_minilm_paraphrases_are_closer_than_unrelated(minilm: SentenceTransformerEmbedder) -> None:
    vecs = minilm.encode(
        [
            "The cat sat on the mat.",
            "A kitten was sitting on the rug.",
            "Quarterly revenue rose by eight percent.",
        ]
    )
    assert vecs.shape == (3, 384)
    assert vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert _cos(vecs[0], vecs[1]) > _cos(vecs[0], vecs[2]) + 0.2
    assert minilm.model_id == "st:all-MiniLM-L6-v2"
    assert minilm.dim == 384


def test_default_factory_is_lazy_minilm() -> None:
    embedder = make_embedder(EmbedSettings())
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert isinstance(embedder, Embedder)
    assert embedder.dim == 384  # known from the pooling config, before torch loads
    assert not embedder.loaded


def test_get_embedder_is_memoised_per_settings() -> None:
    settings = EmbedSettings(batch_size=16)
    assert get_embedder(settings) is get_embedder(EmbedSettings(batch_size=16))
    assert get_embedder(settings) is not get_embedder(EmbedSettings(batch_size=32))


def test_unknown_models_and_backends_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="never downloaded"):
        make_embedder(EmbedSettings(model="BAAI/bge-small-en"))
    with pytest.raises(ValueError, match="unknown embedding backend"):
        make_embedder(EmbedSettings(backend="faiss"))


def test_embed_threads_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACE_LAB_EMBED_THREADS", raising=False)
    assert embed_threads() == 2
    monkeypatch.setenv("ACE_LAB_EMBED_THREADS", "1")
    assert embed_threads() == 1
    monkeypatch.setenv("ACE_LAB_EMBED_THREADS", "zero")
    with pytest.raises(ValueError):
        embed_threads()


# --- embed() with the cache -----------------------------------------------------------------


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


def test_cache_persists_across_instances(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    path = tmp_path / "cache" / "embeddings.sqlite"
    with VectorCache(path) as cache:
        before = embed(["persisted text"], minilm, cache=cache, progress=False)
    counting = CountingEmbedder(minilm)
    with VectorCache.in_dir(path.parent) as reopened:
        after = embed(["persisted text"], counting, cache=reopened, progress=False)
        assert reopened.count(minilm.model_id) == 1
    assert counting.calls == []
    np.testing.assert_array_equal(before, after)


def test_cache_keys_differ_per_model_id(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    cache = VectorCache(tmp_path / "e.sqlite")
    a, b = CountingEmbedder(minilm, "model-a"), CountingEmbedder(minilm, "model-b")
    embed(["shared text"], a, cache=cache, progress=False)
    embed(["shared text"], b, cache=cache, progress=False)
    assert a.encoded == ["shared text"] and b.encoded == ["shared text"]
    assert cache.count("model-a") == cache.count("model-b") == 1
    assert cache.get_many("model-c", ["shared text"]) == {}


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


# --- cache concurrency (deterministic vectors, no model) -------------------------------------


def _fake_vectors(texts: list[str], dim: int = 8) -> np.ndarray:
    rows = [np.random.default_rng(sum(t.encode())).standard_normal(dim) for t in texts]
    return np.asarray(rows, dtype=np.float32)


def _write_from_process(path: str, worker: int) -> None:
    texts = [f"w{worker}-{i}" for i in range(200)]
    cache = VectorCache(path)
    for start in range(0, len(texts), 20):
        batch = texts[start : start + 20]
        cache.put_many("fake", batch, _fake_vectors(batch))
    cache.close()


def test_cache_is_safe_across_threads_and_processes(tmp_path: Path) -> None:
    path = tmp_path / "e.sqlite"
    cache = VectorCache(path)
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda w: _write_from_process(str(path), w), range(4)))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_from_process, args=(str(path), w)) for w in (4, 5)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    assert cache.count("fake") == 6 * 200
    got = cache.get_many("fake", ["w5-7", "w0-199"])
    np.testing.assert_array_equal(got["w5-7"], _fake_vectors(["w5-7"])[0])


# --- OpenAI-compatible backend --------------------------------------------------------------


class FakeEmbeddingsAPI:
    """Scripted stand-in for ``client.embeddings``: answers in reverse index order, like a
    server is allowed to, so the embedder must reorder by ``index``."""

    def __init__(self, dim: int = 5) -> None:
        self.dim = dim
        self.requests: list[dict[str, object]] = []

    def create(self, *, model: str, input: list[str], **kwargs: object) -> SimpleNamespace:
        self.requests.append({"model": model, "input": list(input), **kwargs})
        vectors = _fake_vectors(list(input), self.dim) * 3.0  # not unit length on purpose
        data = [SimpleNamespace(index=i, embedding=vectors[i].tolist()) for i in range(len(input))]
        return SimpleNamespace(data=data[::-1])


def test_openai_embedder_batches_and_normalises(tmp_path: Path) -> None:
    api = FakeEmbeddingsAPI(dim=5)
    embedder = OpenAIEmbedder(
        "text-embedding-3-small", batch_size=2, client=SimpleNamespace(embeddings=api)
    )
    assert embedder.dim is None
    texts = ["one", "two", "three", "four", "five"]
    vecs = embedder.encode(texts)
    assert [r["input"] for r in api.requests] == [["one", "two"], ["three", "four"], ["five"]]
    assert all(r["model"] == "text-embedding-3-small" for r in api.requests)
    assert vecs.shape == (5, 5) and vecs.dtype == np.float32 and embedder.dim == 5
    expected = _fake_vectors(texts, 5)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vecs, expected, atol=1e-6)

    cached = embed(texts, embedder, cache=VectorCache(tmp_path / "e.sqlite"), progress=False)
    np.testing.assert_allclose(cached, expected, atol=1e-6)
    assert embedder.model_id == "openai:text-embedding-3-small"


def test_openai_factory_wiring() -> None:
    settings = EmbedSettings(backend="openai", model="nomic", base_url="http://x/v1", api_key="k")
    embedder = make_embedder(settings)
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.base_url == "http://x/v1" and embedder.batch_size == 64


# --- exact search ---------------------------------------------------------------------------


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
