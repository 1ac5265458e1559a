"""Signalling a process we started, safely: through a pidfd where the kernel has them, so a
pid reused after an identity check is never hit (SIGTERM, a grace period, then SIGKILL)."""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited child not yet reaped) still answers kill(0): check /proc where we can.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[-1][:1] != "Z"
    except OSError:
        return True


def _pidfd(pid: int) -> int | None:
    """A pidfd for ``pid`` (None where unsupported or the process is gone)."""
    try:
        return os.pidfd_open(pid)
    except (OSError, AttributeError):
        return None


def _signal(pid: int, pidfd: int | None, sig: int) -> bool:
    """Send ``sig``; False when the process is already gone."""
    try:
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, sig)
        else:
            os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _exited(pid: int, pidfd: int | None, timeout: float) -> bool:
    if pidfd is not None:  # a pidfd turns readable when its process exits
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(timeout * 1000))
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def terminate(pid: int, grace_s: float = 10.0, verify: Callable[[], bool] | None = None) -> bool:
    """SIGTERM, wait up to ``grace_s``, then SIGKILL ``pid``; False if nothing was signalled.

    ``verify`` is checked after a pidfd is opened (so the process it vouches for is the one
    the pidfd holds) and, without a pidfd, again before SIGKILL.
    """
    if pid <= 0:
        return False
    pidfd = _pidfd(pid)
    try:
        if verify is not None and not verify():
            return False
        if not _signal(pid, pidfd, signal.SIGTERM):
            return False
        if _exited(pid, pidfd, grace_s):
            return True
        if pidfd is None and verify is not None and not verify():
            return True  # gone, and the pid already belongs to another process
        _signal(pid, pidfd, signal.SIGKILL)
        _exited(pid, pidfd, grace_s)
        return True
    finally:
        if pidfd is not None:
            os.close(pidfd)
