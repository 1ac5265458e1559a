"""Embedding with the cache: :func:`embed` reuses cached vectors and encodes only what is missing.

Vectors come back as unit-length float32 rows in input order; each distinct missing text is
encoded once, in batches, and written back batch by batch so an interrupted run keeps its
progress.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ace_lab.embed.backends import Embedder, _batches, _empty, get_embedder
from ace_lab.embed.cache import VectorCache, default_cache

#: Below this many texts to encode a progress bar is more noise than help.
_PROGRESS_MIN_TEXTS = 256


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
