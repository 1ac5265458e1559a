"""The watchdog: stops a read the embedded server's own limits cannot stop.

FalkorDB checks its timeout between records, so one expression that builds a huge list, or a
reply that takes the client longer to read than the budget, outlives ``timeout_ms``; its memory
cap is checked only after a list was filled. While reads are in flight the watchdog polls the
server every ``poll_s``: when a read is ``grace_s`` past its timeout, or the server's resident
memory exceeds what the loaded graphs needed plus a headroom, it kills the server (SIGKILL; the
store restarts it and reloads its graphs on the next call). Each read holds a :class:`Ticket`
whose ``verdict`` tells the reader why its connection died: ``"timeout"`` (this read overran),
``"memory"`` (the server outgrew its ceiling) or ``"collateral"`` (another read did; retry).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass


def rss_bytes(pid: int) -> int | None:
    """Resident memory of ``pid`` from ``/proc`` (None where there is no ``/proc`` or pid)."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@dataclass(eq=False)
class Ticket:
    """One read in flight: when it must be over, and why the watchdog ended it (if it did)."""

    generation: int
    deadline: float
    verdict: str | None = None


class Watchdog:
    """Kills the server (through ``kill(generation)``) when a read overruns or memory grows.

    It holds no reference to the server object, so a forgotten server is still collected and
    its finaliser stops both. ``peak_rss`` is the most memory seen while reads were in flight.
    """

    def __init__(
        self,
        kill: Callable[[int], None],
        grace_s: float,
        headroom_bytes: int,
        poll_s: float = 0.02,
    ) -> None:
        self._kill = kill
        self.grace_s = grace_s
        self.headroom_bytes = headroom_bytes
        self.poll_s = poll_s
        self._cond = threading.Condition()
        self._tickets: set[Ticket] = set()
        self._pid: int | None = None
        self._generation = 0
        self.baseline_rss = 0
        self.peak_rss = 0
        self._stopped = False
        self._thread: threading.Thread | None = None

    @property
    def ceiling_bytes(self) -> int:
        """Resident memory at which the server is killed."""
        return self.baseline_rss + self.headroom_bytes

    def arm(self, pid: int, generation: int) -> None:
        """Watch server process ``pid`` (a fresh start or restart numbered ``generation``)."""
        with self._cond:
            self._pid, self._generation = pid, generation
            self._stopped = False
        self.rebase()
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._loop, name="falkordb-watchdog")
            self._thread.daemon = True
            self._thread.start()

    def rebase(self) -> None:
        """Take the server's present memory (after a load) as what its graphs need."""
        rss = rss_bytes(self._pid) if self._pid else None
        self.baseline_rss = max(self.baseline_rss, rss or 0)

    @contextlib.contextmanager
    def watch(self, timeout_ms: int) -> Iterator[Ticket]:
        """Hold a ticket for one read of at most ``timeout_ms`` for as long as it runs."""
        ticket = Ticket(self._generation, time.monotonic() + timeout_ms / 1000 + self.grace_s)
        with self._cond:
            self._tickets.add(ticket)
            self._cond.notify()
        try:
            yield ticket
        finally:
            with self._cond:
                self._tickets.discard(ticket)

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._stopped and not any(t.verdict is None for t in self._tickets):
                    self._cond.wait()
                if self._stopped:
                    return
                pid, generation = self._pid, self._generation
                tickets = [t for t in self._tickets if t.verdict is None]
            self._check(pid, generation, tickets)
            time.sleep(self.poll_s)

    def _check(self, pid: int | None, generation: int, tickets: list[Ticket]) -> None:
        rss = rss_bytes(pid) if pid else None
        if rss is not None:
            self.peak_rss = max(self.peak_rss, rss)
        now = time.monotonic()
        mine = [t for t in tickets if t.generation == generation]
        if rss is not None and rss > self.ceiling_bytes:
            reason = "memory"
        elif any(now > t.deadline for t in mine):
            reason = "timeout"
        else:
            return
        for t in mine:
            t.verdict = reason if reason == "memory" or now > t.deadline else "collateral"
        self._kill(generation)
