from __future__ import annotations

import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ace_lab.embed.cache import VectorCache, _cache_at
from ace_lab.sqlite_wal import connect_wal


def _hold_exclusive(path: Path, seconds: float, held: threading.Event) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    held.set()
    time.sleep(seconds)
    conn.execute("COMMIT")
    conn.close()


def test_openers_racing_on_a_fresh_file_all_get_a_wal_connection(tmp_path: Path) -> None:
    # Unretried, about one trial in thirty loses the race with "database is locked".
    for trial in range(40):
        path = tmp_path / f"race{trial}.sqlite"
        start = threading.Barrier(8)

        def open_after_barrier(_: int, path: Path = path, start=start) -> str:
            start.wait()
            return VectorCache(path).path.name

        with ThreadPoolExecutor(max_workers=8) as pool:
            assert list(pool.map(open_after_barrier, range(8))) == [path.name] * 8
        conn = connect_wal(path, timeout_s=5)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_lock_held_past_the_timeout_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "busy.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    held = threading.Event()
    holder = threading.Thread(target=_hold_exclusive, args=(path, 1.5, held))
    holder.start()
    held.wait(5)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        connect_wal(path, timeout_s=0.2)
    holder.join()


def test_many_threads_opening_one_fresh_vector_cache_share_it(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    with ThreadPoolExecutor(max_workers=8) as pool:
        caches = list(pool.map(lambda _: _cache_at(path), range(32)))
    assert all(cache is caches[0] for cache in caches)
    assert caches[0].count() == 0
