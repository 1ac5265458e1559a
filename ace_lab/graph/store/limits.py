"""The embedded server's limits: what FalkorDB enforces itself, and what the watchdog adds.

FalkorDB takes its limits as module arguments at load time (``--loadmodule falkordb.so
TIMEOUT_MAX 120000 ...``): ``TIMEOUT_MAX`` caps any query's timeout, ``TIMEOUT_DEFAULT`` applies
to queries that give none, ``RESULTSET_SIZE`` caps the rows of one result and
``QUERY_MEM_CAPACITY`` the memory one query may allocate. They do not cover everything: the
server checks its timeout between records, so a single expression (``[x IN range(1, 10000) |
range(1, 10000)]``) runs to completion, and a list is counted against the memory cap only
after it was filled. Redis's ``client-output-buffer-limit`` drops a client whose pending reply
outgrows ``reply_mb``; the store's watchdog (:mod:`~ace_lab.graph.store.watchdog`) kills the
server when a read outlives its timeout by ``grace_ms`` or the server's memory grows
``memory_headroom_mb`` past what the loaded graphs need, and the store restarts it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ace_lab.graph.store.errors import StoreError


@dataclass(frozen=True)
class ServerLimits:
    """Limits of one embedded FalkorDB server (all positive; defaults suit a laptop)."""

    #: Longest timeout a query may ask for (reads asking more are clamped to it), ms.
    timeout_max_ms: int = 120_000
    #: Timeout of a query that names none, ms.
    timeout_default_ms: int = 5_000
    #: Most rows one result may hold (``read``'s ``max_rows`` must stay below it).
    resultset_size: int = 10_000
    #: Most memory one query may allocate, MB (FalkorDB's ``QUERY_MEM_CAPACITY``).
    query_mem_mb: int = 256
    #: Largest reply the server sends one client before dropping it, MB.
    reply_mb: int = 16
    #: Server memory above the loaded graphs' at which the watchdog kills the server, MB.
    memory_headroom_mb: int = 1024
    #: How long past its timeout a read may run before the watchdog kills the server, ms.
    grace_ms: int = 1000
    #: Query threads (each may use ``query_mem_mb``).
    thread_count: int = 4

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise StoreError(f"ServerLimits.{name} must be a positive integer, not {value!r}")
        if self.timeout_default_ms > self.timeout_max_ms:
            raise StoreError("ServerLimits.timeout_default_ms exceeds timeout_max_ms")

    def module_args(self, folder: str) -> list[str]:
        """FalkorDB's load-time arguments; ``LOAD CSV`` file access is confined to an empty
        folder inside the server's private ``folder``."""
        return [
            "TIMEOUT_MAX",
            str(self.timeout_max_ms),
            "TIMEOUT_DEFAULT",
            str(self.timeout_default_ms),
            "RESULTSET_SIZE",
            str(self.resultset_size),
            "QUERY_MEM_CAPACITY",
            str(self.query_mem_mb * 1024 * 1024),
            "THREAD_COUNT",
            str(self.thread_count),
            "IMPORT_FOLDER",
            f"{folder}/import/",
            "TEMP_FOLDER",
            folder,
        ]

    def redis_args(self) -> list[str]:
        """Redis arguments: drop a client whose pending reply outgrows ``reply_mb``."""
        mb = self.reply_mb
        return ["--client-output-buffer-limit", f"normal {mb}mb {mb}mb 0"]
