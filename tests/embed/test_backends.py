"""Tests for ace_lab.embed.backends: real offline MiniLM, the factory, threads, OpenAI backend."""

from __future__ import annotations

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
    embed,
    embed_threads,
    get_embedder,
    make_embedder,
)
from tests.support.embedders import fake_vectors


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
    with pytest.raises(ValueError, match="backend must be one of"):
        make_embedder(EmbedSettings(backend="faiss"))


def test_embed_threads_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACE_LAB_EMBED_THREADS", raising=False)
    assert embed_threads() == 2
    monkeypatch.setenv("ACE_LAB_EMBED_THREADS", "1")
    assert embed_threads() == 1
    monkeypatch.setenv("ACE_LAB_EMBED_THREADS", "zero")
    with pytest.raises(ValueError, match="ACE_LAB_EMBED_THREADS='zero' is not an integer"):
        embed_threads()
    monkeypatch.setenv("ACE_LAB_EMBED_THREADS", "0")
    with pytest.raises(ValueError, match=r"ACE_LAB_EMBED_THREADS='0' must be in \[1, 256\]"):
        embed_threads()


# --- OpenAI-compatible backend --------------------------------------------------------------


class FakeEmbeddingsAPI:
    """Scripted stand-in for ``client.embeddings``: answers in reverse index order, like a
    server is allowed to, so the embedder must reorder by ``index``."""

    def __init__(self, dim: int = 5) -> None:
        self.dim = dim
        self.requests: list[dict[str, object]] = []

    def create(self, *, model: str, input: list[str], **kwargs: object) -> SimpleNamespace:
        self.requests.append({"model": model, "input": list(input), **kwargs})
        vectors = fake_vectors(list(input), self.dim) * 3.0  # not unit length on purpose
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
    expected = fake_vectors(texts, 5)
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
