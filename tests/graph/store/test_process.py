"""ace_lab.graph.store.process: the embedded server starts, serves and leaves nothing behind."""

from __future__ import annotations

import socket
import stat
import time
from pathlib import Path

import psutil
import pytest

from ace_lab.graph.store import (
    EmbeddedFalkorDB,
    QueryTimeout,
    ResourceLimitError,
    ServerLimits,
)
from tests.support.graphs import small_tables
from tests.support.processes import pid_alive

pytestmark = pytest.mark.integration


def test_embedded_store_leaves_no_process(tmp_path: Path) -> None:
    with EmbeddedFalkorDB(data_dir=tmp_path, graph="solo") as st:
        assert isinstance(st, EmbeddedFalkorDB)
        pid, folder = st.server.pid, st.server.folder
        assert pid is not None and pid_alive(pid) and folder is not None
        assert st.server.socket_path.exists()
        st.load(small_tables())
        assert st.count() == (7, 6)
    assert not st.server.running and not pid_alive(pid)
    assert not folder.exists()
    st.close()  # idempotent


def test_socket_folder_is_private_and_no_tcp_port_is_open(tmp_path: Path) -> None:
    with EmbeddedFalkorDB(tmp_path, graph="g") as st:
        folder = st.server.folder
        assert folder is not None and stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE(st.server.socket_path.stat().st_mode) & 0o077 == 0
        assert list((folder / "import").iterdir()) == []  # LOAD CSV's only file:// root
        conns = psutil.Process(st.server.pid).net_connections(kind="all")
        assert conns and all(c.family == socket.AF_UNIX for c in conns)
        assert {c.laddr for c in conns} == {str(st.server.socket_path)}
        assert psutil.Process(st.server.pid).net_connections(kind="inet") == []


def test_the_watchdog_stops_what_the_server_timeout_cannot(tmp_path: Path) -> None:
    """Regression: one huge expression ran on long after its timeout (the server checks its
    timeout between records only); the watchdog kills the server, the store restarts it and
    reloads the graph."""
    with EmbeddedFalkorDB(tmp_path, graph="g", limits=ServerLimits(grace_ms=300)) as st:
        st.load(small_tables())
        pid = st.server.pid
        start = time.perf_counter()
        with pytest.raises(QueryTimeout, match="restarted"):
            st.read("RETURN size([x IN range(1, 10000) | [y IN range(1, 10000) | y]])", None, 200)
        assert time.perf_counter() - start < 0.2 + 0.3 + 1.5
        assert not st.server.running
        assert st.count() == (7, 6) and st.server.restarts == 1 and st.server.pid != pid
        assert not pid_alive(pid)  # reaped by the restart
        assert st.read("MATCH (p:Person) RETURN p.name AS n").rows == [{"n": "Georg Cantor"}]


def test_the_watchdog_keeps_server_memory_under_its_ceiling(tmp_path: Path) -> None:
    """A list filled at run time grows past QUERY_MEM_CAPACITY before the server checks it."""
    limits = ServerLimits(memory_headroom_mb=64, query_mem_mb=2048, grace_ms=10_000)
    with EmbeddedFalkorDB(tmp_path, graph="g", limits=limits) as st:
        st.load(small_tables())
        ceiling = st.server.watchdog.ceiling_bytes
        with pytest.raises(ResourceLimitError, match="memory"):
            st.read(
                "MATCH (n) WITH count(n) AS c UNWIND range(1, c * 2000000) AS x RETURN sum(x)",
                timeout_ms=20_000,
            )
        assert st.server.watchdog.peak_rss < ceiling + 128 * 1024 * 1024
        assert st.count() == (7, 6) and st.server.restarts == 1


def test_a_reply_too_large_is_dropped_by_the_server(tmp_path: Path) -> None:
    with EmbeddedFalkorDB(tmp_path, graph="g", limits=ServerLimits(reply_mb=1)) as st:
        st.load(small_tables())
        with pytest.raises(ResourceLimitError, match="reply"):
            st.read("UNWIND range(1, 300000) AS x RETURN collect(x) AS xs")
        assert st.count() == (7, 6) and st.server.restarts == 0


def test_an_overrun_read_returns_when_killed_not_when_the_server_is_gone(
    tmp_path: Path, monkeypatch
) -> None:
    """Regression: under load, reads the watchdog stopped ended 1.7-2.6 s after a 0.5 s
    timeout: the reader waited for the kernel to tear down a server that had grown huge. A
    teardown that takes 2 s (the kill delayed) must not delay the reader: its socket is shut
    down at the kill."""
    import subprocess as sp

    real_kill = sp.Popen.kill

    def slow_kill(proc: sp.Popen) -> None:  # the server lives on 2 s after the verdict
        time.sleep(2.0)
        real_kill(proc)

    with EmbeddedFalkorDB(tmp_path, graph="g", limits=ServerLimits(grace_ms=300)) as st:
        st.load(small_tables())
        monkeypatch.setattr(sp.Popen, "kill", slow_kill)
        start = time.perf_counter()
        with pytest.raises(QueryTimeout):
            st.read("RETURN size([x IN range(1, 10000) | [y IN range(1, 10000) | y]])", None, 200)
        assert time.perf_counter() - start < 0.2 + 0.3 + 1.0
