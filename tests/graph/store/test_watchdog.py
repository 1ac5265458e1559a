"""ace_lab.graph.store.watchdog: who is blamed, when the server is killed (no server needed)."""

from __future__ import annotations

import os
import time

from ace_lab.graph.store import Watchdog
from ace_lab.graph.store.watchdog import Ticket, rss_bytes


def _dog(headroom: int = 10**12) -> tuple[Watchdog, list[int]]:
    killed: list[int] = []
    dog = Watchdog(killed.append, grace_s=0.05, headroom_bytes=headroom)
    dog._pid, dog._generation = os.getpid(), 7
    return dog, killed


def test_an_overdue_read_is_blamed_and_the_others_retried() -> None:
    dog, killed = _dog()
    late = Ticket(7, time.monotonic() - 1)
    other = Ticket(7, time.monotonic() + 60)
    stale = Ticket(6, time.monotonic() - 1)  # a read on a server that was already replaced
    dog._check(os.getpid(), 7, [late, other, stale])
    assert killed == [7]
    assert (late.verdict, other.verdict, stale.verdict) == ("timeout", "collateral", None)


def test_memory_past_the_ceiling_blames_every_read() -> None:
    dog, killed = _dog(headroom=1)
    dog.baseline_rss = 0
    a, b = Ticket(7, time.monotonic() + 60), Ticket(7, time.monotonic() + 60)
    dog._check(os.getpid(), 7, [a, b])
    assert killed == [7] and a.verdict == b.verdict == "memory"
    assert dog.peak_rss == max(dog.peak_rss, rss_bytes(os.getpid()) or 0) > 0


def test_reads_within_budget_are_left_alone() -> None:
    dog, killed = _dog()
    ticket = Ticket(7, time.monotonic() + 60)
    dog._check(os.getpid(), 7, [ticket])
    assert killed == [] and ticket.verdict is None


def test_the_thread_kills_an_overrun_and_stops() -> None:
    killed: list[int] = []
    dog = Watchdog(killed.append, grace_s=0.05, headroom_bytes=10**12, poll_s=0.01)
    dog.arm(os.getpid(), 3)
    with dog.watch(timeout_ms=10) as ticket:
        deadline = time.monotonic() + 5
        while ticket.verdict is None and time.monotonic() < deadline:
            time.sleep(0.01)
    dog.stop()
    assert killed and killed[0] == 3 and ticket.verdict == "timeout"
    assert rss_bytes(-1) is None
