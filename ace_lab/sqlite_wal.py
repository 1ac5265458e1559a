"""SQLite connections for the on-disk caches: WAL journal, busy timeout, autocommit.

The LLM response cache and the vector cache are opened by many threads and worker processes
at once. Switching a fresh database to WAL takes a shared lock and then an exclusive one; when
two openers race, SQLite refuses one of them at once with "database is locked" (waiting could
deadlock, so the busy timeout does not apply), and :func:`connect_wal` retries instead.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path


def connect_wal(path: str | Path, timeout_s: float) -> sqlite3.Connection:
    """An autocommit connection to ``path`` in WAL mode, synchronous NORMAL, with a busy
    timeout of ``timeout_s``; usable from any thread (callers serialise their own use)."""
    conn = sqlite3.connect(path, timeout=timeout_s, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
    _use_wal(conn, timeout_s)
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _use_wal(conn: sqlite3.Connection, timeout_s: float) -> None:
    """Switch to WAL unless already there, retrying a locked switch until ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    delay = 0.01
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
