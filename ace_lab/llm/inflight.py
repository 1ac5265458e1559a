"""How many LLM requests are in flight at once, and the pools that keep them there.

A remote endpoint (``settings.llm.base_url`` set: vLLM, a hosted API) serves many requests at
once, so per-chunk extraction, per-question runs and judging send up to
``settings.llm.concurrency`` requests together. :class:`InFlight` is the gate every request of
one :class:`~ace_lab.llm.LLM` passes: never more than that many are sent at once, however many
threads the callers run (a run's questions times a method's own ``llm.map``); a request that
got 429 waits what its ``Retry-After`` asks without holding a place. The embedded
local server has one slot and queues what it is sent: its client has no gate and runs keep one
question in flight (:func:`default_concurrency`), as before.

:func:`map_ordered` and :func:`as_finished` run independent tasks on a pool, each in a copy of
the caller's context (its LLM calls attach to the caller's trace step); ``as_finished`` hands
each result to the calling thread as it comes, so that thread alone writes records, once each.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from typing import TypeVar

from tqdm.auto import tqdm

from ace_lab.config import LLMSettings, Settings

T = TypeVar("T")
R = TypeVar("R")


def request_limit(cfg: LLMSettings) -> int | None:
    """Requests one client may have in flight: ``cfg.concurrency`` for a remote endpoint, no
    gate (None) for the local server, which queues requests itself."""
    return None if cfg.is_local else cfg.concurrency


def default_concurrency(settings: Settings) -> int:
    """Questions (or pairs) in flight when the caller names none: the setting for a remote
    endpoint, 1 for the local one-slot server (a second one would only wait in its queue)."""
    return 1 if settings.llm.is_local else settings.llm.concurrency


class InFlight:
    """A gate that lets at most ``limit`` requests through at once (``None``: no limit).

    ``with gate.slot():`` around one send, never around a retry's wait: a request that got 429
    gives its place back while it waits what ``Retry-After`` asks (see
    :class:`~ace_lab.llm.endpoint.RetryPolicy`). ``peak`` is the most requests that were ever
    in flight together (tests and benches read it).
    """

    def __init__(self, limit: int | None) -> None:
        if limit is not None and limit < 1:
            raise ValueError(f"in-flight limit must be >= 1 or None, got {limit}")
        self.limit = limit
        self._slots = threading.BoundedSemaphore(limit) if limit is not None else None
        self._lock = threading.Lock()
        self.current = 0
        self.peak = 0

    @contextmanager
    def slot(self) -> Iterator[int]:
        """Hold one of the ``limit`` places for the send made inside the ``with``; gives the
        requests in flight, this one included, as it was let through."""
        if self._slots is not None:
            self._slots.acquire()
        with self._lock:
            self.current += 1
            self.peak = max(self.peak, self.current)
            flight = self.current
        try:
            yield flight
        finally:
            with self._lock:
                self.current -= 1
            if self._slots is not None:
                self._slots.release()


def _submit_all(pool: ThreadPoolExecutor, fn: Callable[[T], R], items: list[T]) -> list[Future[R]]:
    # One context copy per task: a Context cannot be entered by two threads at once.
    return [pool.submit(contextvars.copy_context().run, fn, x) for x in items]


def map_ordered(
    fn: Callable[[T], R], items: Iterable[T], limit: int, desc: str | None = None
) -> list[R]:
    """``[fn(x) for x in items]`` with up to ``limit`` running at once, in input order.

    The first exception propagates and the items not started yet are cancelled (a dead
    endpoint fails a batch once, not once per item). ``desc`` shows a progress bar.
    """
    items = list(items)
    limit = max(1, min(limit, len(items) or 1))
    bar = tqdm(total=len(items), desc=desc, unit="call", disable=desc is None)
    try:
        if limit == 1:
            results = []
            for x in items:
                results.append(fn(x))
                bar.update(1)
            return results
        with ThreadPoolExecutor(max_workers=limit) as pool:
            futures = _submit_all(pool, fn, items)
            try:
                for future in as_completed(futures):
                    future.result()
                    bar.update(1)
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
            return [f.result() for f in futures]
    finally:
        bar.close()


def as_finished(
    fn: Callable[[T], R], items: Iterable[T], limit: int
) -> Iterator[tuple[T, R | None, Exception | None]]:
    """``(item, fn(item), None)`` or ``(item, None, error)`` for each item as it finishes.

    Up to ``limit`` run at once; a failed item does not stop the others. Consumed in the
    calling thread, so whoever writes a record per result writes it once, from one thread.
    Leaving the loop early cancels what has not started and waits for what has.
    """
    items = list(items)
    pool = ThreadPoolExecutor(max_workers=max(1, min(limit, len(items) or 1)))
    try:
        futures = dict(zip(_submit_all(pool, fn, items), items, strict=True))
        for future in as_completed(futures):
            try:
                yield futures[future], future.result(), None
            except Exception as exc:
                yield futures[future], None, exc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
