"""Processes and ports: whether a process is still there, a free loopback port."""

from __future__ import annotations

import os
import socket


def pid_alive(pid: int) -> bool:
    """Whether a process with ``pid`` still exists (a stopped store must leave none behind)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
