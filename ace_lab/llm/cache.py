"""Exact LLM response cache in SQLite (WAL): safe for several threads and processes.

The key is a hash of everything that changes the answer — model identity (for local tiers the
GGUF sha256), messages, sampling parameters, stop, seed and response format — so a cached
answer is returned only for an identical request. Numeric sampling fields are keyed in one
canonical type each (``temperature=0`` and ``0.0`` are the same request). Only successful
responses are stored; the caller decides what success means (non-empty, schema-valid).
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ace_lab.sqlite_wal import connect_wal

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


#: Sampling fields keyed as floats (``FLOAT_FIELDS``) or ints (``INT_FIELDS``) whatever type they
#: came in: ``0`` and ``0.0`` ask the model the same thing. Floats, not ints, for the real-valued
#: ones: every key made so far (the SQLite caches and the archives committed under
#: ``data/graphs/``) was made from ``0.0``/``1.0``, so they keep their keys and still hit.
FLOAT_FIELDS = ("temperature", "top_p", "frequency_penalty", "presence_penalty")
INT_FIELDS = ("max_tokens", "seed", "n")


def normalise_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """``request`` with its numeric sampling fields in their canonical type (see above)."""
    out = dict(request)
    for name in FLOAT_FIELDS:
        value = out.get(name)
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            out[name] = float(value) + 0.0  # + 0.0 turns -0.0 into 0.0
    for name in INT_FIELDS:
        value = out.get(name)
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            continue
        if isinstance(value, numbers.Integral) or float(value).is_integer():
            out[name] = int(value)
    return out


def cache_key(request: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the full, normalised request (see module docstring)."""
    return hashlib.sha256(canonical_json(normalise_request(request)).encode("utf-8")).hexdigest()


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
            conn = connect_wal(self.path, timeout_s=30.0)
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
        conn = self._conn()
        # One transaction: a response and its latency are stored together or not at all.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if latency_s is None:
                conn.execute("DELETE FROM latencies WHERE key = ?", (key,))
            else:
                conn.execute(
                    "INSERT OR REPLACE INTO latencies VALUES (?, ?)", (key, float(latency_s))
                )
            conn.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    str(request.get("model_identity", "")),
                    canonical_json(normalise_request(request)),
                    text,
                    prompt_tokens,
                    completion_tokens,
                    time.time(),
                ),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

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
            # Split on "\n" only: JSON keeps U+2028, U+2029 and U+0085 raw inside strings, and
            # str.splitlines() would cut a response that contains one in two.
            for line in self.path.read_bytes().split(b"\n"):
                try:
                    row = json.loads(line.decode("utf-8"))
                    self._rows[row["key"]] = CachedResponse(
                        row["text"], row["prompt_tokens"], row["completion_tokens"]
                    )
                except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
                    continue  # a torn line (archives older than atomic writes): not archived

    def get(self, key: str) -> CachedResponse | None:
        return self._rows.get(key)

    def entries(self) -> dict[str, CachedResponse]:
        """Every archived response by key (e.g. to keep them when a rebuild rewrites the file)."""
        return dict(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    @staticmethod
    def write(path: Path | str, entries: dict[str, CachedResponse]) -> None:
        """Write ``entries`` (sorted by key, so the file is stable under rebuilds).

        Atomically: a temporary file, fsynced, then renamed over ``path``, so a process killed
        while writing leaves the previous archive whole rather than a truncated one.
        """
        lines = [
            json.dumps(
                {
                    "key": k,
                    "text": e.text,
                    "prompt_tokens": e.prompt_tokens,
                    "completion_tokens": e.completion_tokens,
                },
                ensure_ascii=False,
            )
            for k, e in sorted(entries.items())
        ]
        path = Path(path)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with tmp.open("w", encoding="utf-8", newline="\n") as fh:
                fh.write("\n".join(lines) + ("\n" if lines else ""))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
