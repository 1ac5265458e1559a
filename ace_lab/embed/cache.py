"""On-disk vector cache: float32 rows in SQLite keyed by embedder ``model_id`` and text hash.

Every retriever, the hybrid index and the synonym edges embed the same passages and entity
names again and again, across notebooks, worker processes and reruns; :class:`VectorCache`
keeps each vector once so :func:`ace_lab.embed.embed` encodes only what is missing.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Self

import numpy as np

from ace_lab.config import load_settings
from ace_lab.sqlite_wal import connect_wal

#: Keys per SQL ``IN (...)`` lookup; well under SQLite's bound-parameter limit.
_SQL_CHUNK = 500


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
            conn = connect_wal(self.path, self.timeout_s)
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


_CACHES_LOCK = threading.Lock()


@functools.lru_cache(maxsize=4)
def _cache_at_unlocked(path: Path) -> VectorCache:
    return VectorCache(path)


def _cache_at(path: Path) -> VectorCache:
    # lru_cache does not stop two threads constructing the same entry at once; one shared
    # VectorCache per file keeps its single connection (and lock) per process.
    with _CACHES_LOCK:
        return _cache_at_unlocked(path)


def default_cache() -> VectorCache:
    """The shared cache in ``load_settings().cache_dir / "embeddings.sqlite"``."""
    return _cache_at(load_settings().cache_dir / "embeddings.sqlite")
