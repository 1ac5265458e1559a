"""Server processes: stale state files signal nothing foreign; servers listen privately only."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path

import pytest

from tests.reliability.scale import full_scale
from tests.reliability.server_processes import (
    ROUNDS_FAST,
    ROUNDS_FULL,
    listening_addresses,
    listening_sockets,
    private,
    stale_state_files,
)

pytestmark = pytest.mark.reliability


def test_stale_state_files_signal_no_foreign_process() -> None:
    row = stale_state_files(ROUNDS_FULL if full_scale() else ROUNDS_FAST)
    assert row["failed"] == 0, row["note"]
    assert row["held"] == row["attempts"] >= 17
    assert row["note"].startswith("0 signals to foreign processes")


def test_the_socket_reader_sees_public_and_private_listeners() -> None:
    """The check itself: a socket on every interface is found and judged public."""
    with socket.socket() as public, socket.socket() as loopback:
        public.bind(("0.0.0.0", 0))
        loopback.bind(("127.0.0.1", 0))
        public.listen()
        loopback.listen()
        found = dict((addr, kind) for kind, addr in listening_sockets(os.getpid()))
        assert found[f"0.0.0.0:{public.getsockname()[1]}"] == "tcp"
        assert f"127.0.0.1:{loopback.getsockname()[1]}" in found
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o755)
        assert not private("unix", f"{tmp}/s.sock") and not private("unix", "@abstract")
        Path(tmp).chmod(0o700)
        assert private("unix", f"{tmp}/s.sock") and private("tcp", "[::1]:80")
    assert not private("tcp", "0.0.0.0:80") and not private("tcp", "[::]:80")


@pytest.mark.integration
def test_llm_server_and_falkordb_listen_on_loopback_or_a_private_socket() -> None:
    row = listening_addresses()
    assert row["failed"] == 0, row["note"]
    assert "LLM server tcp 127.0.0.1:" in row["note"] and "FalkorDB unix " in row["note"]
