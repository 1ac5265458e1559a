"""Exact LLM response cache in SQLite (WAL): safe for several threads and processes.

The key is a hash of everything that changes the answer — model identity (for local tiers the
GGUF sha256), messages, sampling parameters, stop, seed and response format — so a cached
answer is returned only for an identical request. Only successful responses are stored; the
caller decides what success means (non-empty, schema-valid).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created REAL NOT NULL
)
"""
#: How long the model took to produce each response, kept beside it (its own table, so caches
#: written before it existed still work): a cache hit can then report what the call cost cold.
_LATENCY_SCHEMA = """
CREATE TABLE IF NOT EXISTS latencies (key TEXT PRIMARY KEY, latency_s REAL NOT NULL)
"""


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(request: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the full request (see module docstring)."""
    return hashlib.sha256(canonical_json(request).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedResponse:
    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float | None = None  # model time when it was made (None: not recorded)


class ResponseCache:
    """``get``/``put`` by key; one SQLite connection per thread, WAL, 30 s busy timeout."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        with self._conn() as conn:
            conn.execute(_SCHEMA)
            conn.execute(_LATENCY_SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
        return conn

    def get(self, key: str) -> CachedResponse | None:
        row = (
            self._conn()
            .execute(
                "SELECT r.text, r.prompt_tokens, r.completion_tokens, l.latency_s "
                "FROM responses r LEFT JOIN latencies l ON l.key = r.key WHERE r.key = ?",
                (key,),
            )
            .fetchone()
        )
        return CachedResponse(*row) if row else None

    def put(
        self,
        key: str,
        request: Mapping[str, Any],
        text: str,
        prompt_tokens: int,
        completion_tokens: int,
        latency_s: float | None = None,
    ) -> None:
        if latency_s is not None:
            self._conn().execute(
                "INSERT OR REPLACE INTO latencies VALUES (?, ?)", (key, float(latency_s))
            )
        self._conn().execute(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                str(request.get("model_identity", "")),
                canonical_json(request),
                text,
                prompt_tokens,
                completion_tokens,
                time.time(),
            ),
        )

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def entries(self, model_identity: str | None = None) -> dict[str, CachedResponse]:
        """All stored responses (of one model identity), e.g. to archive an unfinished build."""
        query = "SELECT key, text, prompt_tokens, completion_tokens FROM responses"
        args: tuple[str, ...] = ()
        if model_identity is not None:
            query += " WHERE model = ?"
            args = (model_identity,)
        return {k: CachedResponse(t, p, c) for k, t, p, c in self._conn().execute(query, args)}

    def clear(self) -> None:
        self._conn().execute("DELETE FROM responses")


class ResponseArchive:
    """Read-only responses shipped with an artefact (JSONL: key, text, token counts).

    A graph build records every response it used into its run folder, so the build can be
    rerun on a fresh clone — where the SQLite cache is empty — without any model call.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._rows: dict[str, CachedResponse] = {}
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self._rows[row["key"]] = CachedResponse(
                        row["text"], row["prompt_tokens"], row["completion_tokens"]
                    )
                except (json.JSONDecodeError, KeyError):
                    continue  # a torn line: that response is simply not archived

    def get(self, key: str) -> CachedResponse | None:
        return self._rows.get(key)

    def __len__(self) -> int:
        return len(self._rows)

    @staticmethod
    def write(path: Path | str, entries: dict[str, CachedResponse]) -> None:
        """Write ``entries`` (sorted by key, so the file is stable under rebuilds)."""
        lines = [
            json.dumps(
                {"key": k, "text": e.text, "prompt_tokens": e.prompt_tokens,
                 "completion_tokens": e.completion_tokens},
                ensure_ascii=False,
            )
            for k, e in sorted(entries.items())
        ]  # fmt: skip
        Path(path).write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
