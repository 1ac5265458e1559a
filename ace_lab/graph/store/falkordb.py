"""The FalkorDB backend: one named graph in a FalkorDB server, read through ``GRAPH.RO_QUERY``.

Several stores may share one client (and so one server): :class:`FalkorDBServerProcess` hands
out stores on its private server, :meth:`FalkorDBStore.connect` targets an external FalkorDB.
A read is refused on the server side twice, independently of the text guard: its plan
(``GRAPH.EXPLAIN``) may hold no writing or ``LOAD CSV`` operation, and it runs through the
read-only command with a timeout, so a write the guard missed still fails. On an embedded
server, a read also holds a watchdog ticket (:mod:`~ace_lab.graph.store.watchdog`).

A load creates the graph with ``GRAPH.BULK`` (:mod:`~ace_lab.graph.store.bulk`), then its
``id`` indexes; when the tables hold a value that protocol cannot carry or the server refuses
it, the load runs the ``UNWIND`` batches of :mod:`~ace_lab.graph.store.load_plan` instead.
``last_load`` (a :class:`LoadReport`, also logged) says which path loaded and why.
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from falkordb import FalkorDB
from falkordb.helpers import stringify_param_value
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

from ace_lab.graph.store.base import GraphStore
from ace_lab.graph.store.bulk import BulkUnsupported, bulk_calls
from ace_lab.graph.store.errors import (
    QueryTimeout,
    ResourceLimitError,
    StoreError,
    UnsafeQueryError,
    WriteQueryError,
)
from ace_lab.graph.store.limits import ServerLimits
from ace_lab.graph.store.load_plan import cypher_name, node_groups
from ace_lab.graph.store.watchdog import Ticket
from ace_lab.graph.tables import GraphTables

log = logging.getLogger(__name__)

#: Plan operations that write or reach outside the graph; a read's plan may hold none of them.
FORBIDDEN_OPERATIONS = frozenset(
    {"Create", "Merge", "MergeCreate", "Update", "Delete", "Foreach", "Load CSV"}
)


class ServerHost(Protocol):
    """What a store needs from the embedded server that owns it (FalkorDBServerProcess)."""

    limits: ServerLimits

    @property
    def client(self) -> Any: ...
    @property
    def generation(self) -> int: ...
    @property
    def running(self) -> bool: ...
    def ensure_running(self) -> None: ...
    def remember(self, graph: str, tables: GraphTables) -> None: ...
    def watch(self, timeout_ms: int) -> contextlib.AbstractContextManager[Ticket]: ...
    def was_killed(self, generation: int) -> bool: ...
    def alive_after(self, wait_s: float) -> bool: ...


def _is_timeout(exc: BaseException) -> bool:
    return "timed out" in str(exc).lower()  # FalkorDB 4.x: "Query timed out"


def plan_operations(plan: Any) -> set[str]:
    """Operation names of a ``GRAPH.EXPLAIN`` reply (``"    Load CSV"`` → ``Load CSV``).

    A schema command (``CREATE INDEX``) has no plan: the reply is its name as one string.
    """
    lines = [plan] if isinstance(plan, str | bytes) else list(plan)
    return {
        (line.decode() if isinstance(line, bytes) else str(line)).split("|")[0].strip()
        for line in lines
    }


def params_header(params: dict[str, Any]) -> str:
    """The ``CYPHER name=value ...`` prefix FalkorDB takes parameters in (as the client does)."""
    if not params:
        return ""
    return "CYPHER " + " ".join(f"`{k}`={stringify_param_value(v)} " for k, v in params.items())


@dataclass(frozen=True)
class LoadReport:
    """How one load ran: ``bulk`` (``GRAPH.BULK``) or ``unwind`` (Cypher batches, and why)."""

    path: Literal["bulk", "unwind"]
    nodes: int
    edges: int
    seconds: float
    reason: str = ""  # why not bulk; empty when bulk loaded

    def line(self) -> str:
        why = f" ({self.reason})" if self.reason else ""
        counts = f"{self.nodes:,} nodes, {self.edges:,} edges"
        return f"{counts} via {self.path}{why} in {self.seconds:.1f} s"


class FalkorDBStore(GraphStore):
    """One named graph in a FalkorDB server (several stores may share one client/server).

    ``host`` is the embedded server that owns the client (restarted when it dies, reloading
    this graph); ``limits`` (implied by ``host``) give the timeout and row ceilings and the
    timeout of loading writes, which would otherwise fall under the server's default timeout.
    ``bulk=False`` loads through the ``UNWIND`` batches only.
    """

    #: How the last ``load`` ran (None before the first).
    last_load: LoadReport | None = None

    def __init__(
        self,
        db: Any,
        graph: str,
        *,
        owns_connection: bool = False,
        host: ServerHost | None = None,
        limits: ServerLimits | None = None,
        bulk: bool = True,
    ) -> None:
        if not graph:
            raise StoreError("graph name must not be empty")
        self._db = db
        self.graph_name = graph
        self._host = host
        self._generation = host.generation if host else 0
        self._graph_obj = db.select_graph(graph)
        self._owns_connection = owns_connection
        self._closed = False
        self.bulk = bulk
        self.limits = limits or (host.limits if host else None)
        if self.limits is not None:
            self.timeout_ceiling_ms = self.limits.timeout_max_ms
            self.row_ceiling = self.limits.resultset_size

    @classmethod
    def connect(
        cls, host: str = "localhost", port: int = 6379, graph: str = "ace", **kw: Any
    ) -> FalkorDBStore:
        """A store on an external FalkorDB server (``kw`` go to ``falkordb.FalkorDB``).

        The server's own limits (``TIMEOUT_MAX``, ``QUERY_MEM_CAPACITY``, ...) are its
        operator's to set; there is no watchdog for a server this process does not own.
        """
        try:  # the client probes the server (sentinel/cluster detection) on construction
            db = FalkorDB(host=host, port=port, **kw)
            db.connection.ping()
        except RedisError as exc:
            raise StoreError(f"no FalkorDB server at {host}:{port}: {exc}") from exc
        return cls(db, graph, owns_connection=True)

    @property
    def _graph(self) -> Any:
        """The graph handle on a live server (restarted and re-selected if it died)."""
        if self._host is not None:
            self._host.ensure_running()
            if self._host.generation != self._generation:
                self._db = self._host.client
                self._graph_obj = self._db.select_graph(self.graph_name)
                self._generation = self._host.generation
        return self._graph_obj

    def _write_timeout(self) -> int | None:
        return self.limits.timeout_max_ms if self.limits else None

    def exists(self) -> bool:
        self._graph  # noqa: B018 -- a live server first (restarted if it died)
        return self.graph_name in self._db.list_graphs()

    def server_value(self, key: str) -> str | None:
        """The text the server holds under ``key`` (a plain Redis key beside the graphs)."""
        self._graph  # noqa: B018 -- a live server first (restarted if it died)
        value = self._db.connection.get(key)
        return value.decode() if isinstance(value, bytes) else value

    def set_server_value(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key`` on the server (e.g. what a graph was loaded from)."""
        self._graph  # noqa: B018
        self._db.connection.set(key, value)

    def server_info(self, section: str) -> dict[str, Any]:
        """The server's ``INFO <section>`` (``memory``, ``cpu``, ...), as the client parses it."""
        self._graph  # noqa: B018
        return dict(self._db.connection.info(section))

    def load(self, tables: GraphTables) -> None:
        """Replace the graph's content with ``tables``: ``GRAPH.BULK``, else ``UNWIND``."""
        started = time.perf_counter()
        if self.bulk:
            tables.validate()
            reason = self._bulk_load(tables)
        else:
            reason = "bulk loading is off"
        if reason:
            super().load(tables)
        self.last_load = LoadReport(
            "unwind" if reason else "bulk",
            len(tables.nodes),
            len(tables.edges),
            time.perf_counter() - started,
            reason or "",
        )
        log.info("graph %r loaded: %s", self.graph_name, self.last_load.line())
        if self._host is not None:
            self._host.remember(self.graph_name, tables)

    def _bulk_load(self, tables: GraphTables) -> str | None:
        """Create the graph with ``GRAPH.BULK`` and index it; None, or why it could not."""
        if tables.nodes.empty:
            return "no nodes"
        if self.exists():
            self._graph.delete()
        try:
            for i, call in enumerate(bulk_calls(tables)):
                self._graph.execute_command("GRAPH.BULK", self.graph_name, *call.args(i == 0))
        except BulkUnsupported as exc:
            reason = str(exc)
        except RedisError as exc:
            reason = f"the server refused GRAPH.BULK: {str(exc).splitlines()[0]}"
        else:
            for label, _ in node_groups(tables):
                self._index(label)
            self._await_indexes()
            return None
        with contextlib.suppress(RedisError):  # a partial graph: the UNWIND path starts over
            if self.exists():
                self._graph.delete()
        return reason

    def _await_indexes(self, wait_s: float = 600.0) -> None:
        """Wait until every index is built: one created over existing nodes is filled in the
        background, and a read meanwhile would scan (same rows, but slowly)."""
        deadline = time.monotonic() + wait_s
        query = "CALL db.indexes() YIELD status RETURN status"
        while any(row[0] != "OPERATIONAL" for row in self._graph.ro_query(query).result_set):
            if time.monotonic() > deadline:
                raise StoreError(f"the id indexes of {self.graph_name!r} were not built in time")
            time.sleep(0.05)

    def _clear(self) -> None:
        if self.exists():
            self._graph.delete()
        self._graph.query("RETURN 1")  # materialise an empty graph so reads of it succeed

    def _index(self, label: str) -> None:
        cypher = f"CREATE INDEX FOR (n:{cypher_name(label)}) ON (n.id)"
        try:
            self._graph.query(cypher, timeout=self._write_timeout())
        except ResponseError as exc:  # two labels that sanitise alike share one index
            if "already indexed" not in str(exc):
                raise StoreError(f"cannot index {label!r}: {exc}") from exc

    def _write(self, cypher: str, params: dict[str, Any]) -> None:
        try:
            self._graph.query(cypher, params, timeout=self._write_timeout())
        except RedisError as exc:
            raise StoreError(f"load statement failed: {exc}\n{cypher}") from exc

    # ----------------------------------------------------------------------------- reading
    def _watch(self, timeout_ms: int) -> contextlib.AbstractContextManager[Ticket | None]:
        return self._host.watch(timeout_ms) if self._host else contextlib.nullcontext()

    def _execute(
        self, cypher: str, params: dict[str, Any], timeout_ms: int, fetch: int
    ) -> tuple[list[str], list[list[Any]]]:
        for attempt in (1, 2):
            graph = self._graph
            with self._watch(timeout_ms) as ticket:
                try:
                    return self._run(graph, cypher, params, timeout_ms, fetch)
                except RedisConnectionError as exc:
                    failure: RedisError = exc
                    verdict = ticket.verdict if ticket else None
                    generation = ticket.generation if ticket else 0
            if verdict == "timeout":
                raise QueryTimeout(
                    f"query exceeded {timeout_ms} ms and the server did not stop it; "
                    "the store restarted the server"
                ) from failure
            if verdict == "memory":
                raise ResourceLimitError(
                    "query grew the server's memory past its ceiling; the store restarted it"
                ) from failure
            host = self._host
            if host is not None and attempt == 1 and host.was_killed(generation):
                continue  # another read overran and took the server down: run this one again
            dropped = "closed by server" in str(failure).lower()
            if dropped and self.limits is not None and (host is None or host.alive_after(0.2)):
                raise ResourceLimitError(
                    f"the server dropped the reply: larger than {self.limits.reply_mb} MB"
                ) from failure
            raise StoreError(
                f"FalkorDB unavailable: {failure}"
                + ("; the embedded server exited and restarts on the next call" if host else "")
            ) from failure
        raise AssertionError("unreachable")  # pragma: no cover

    def _run(
        self, graph: Any, cypher: str, params: dict[str, Any], timeout_ms: int, fetch: int
    ) -> tuple[list[str], list[list[Any]]]:
        try:
            plan = graph.execute_command(
                "GRAPH.EXPLAIN", self.graph_name, params_header(params) + cypher
            )
            if isinstance(plan, str | bytes):
                raise WriteQueryError(f"not a read query: the server plans it as {plan!r}")
            forbidden = plan_operations(plan) & FORBIDDEN_OPERATIONS
            if forbidden:
                raise WriteQueryError(
                    f"the server's plan for this read holds {', '.join(sorted(forbidden))}"
                )
            result = graph.ro_query(cypher, params or None, timeout=timeout_ms)
        except ResponseError as exc:
            raise self._read_error(exc, timeout_ms) from exc
        except RedisConnectionError:
            raise
        except RedisError as exc:  # server gone in some other way
            raise StoreError(f"FalkorDB unavailable: {exc}") from exc
        except (ValueError, TypeError) as exc:  # the client refused the params
            raise UnsafeQueryError(f"the FalkorDB client cannot send this query: {exc}") from exc
        columns = [str(h[1]) for h in result.header]
        return columns, list(result.result_set[:fetch])

    def _read_error(self, exc: ResponseError, timeout_ms: int) -> StoreError:
        text = str(exc)
        if _is_timeout(exc):
            return QueryTimeout(f"query exceeded {timeout_ms} ms and was aborted")
        if "mem consumption exceeded capacity" in text or "more memory" in text:
            return ResourceLimitError(f"query needed more memory than the store allows: {text}")
        if "read-only" in text:
            return WriteQueryError(f"server refused a write: {text}")
        if "empty key" in text:
            return StoreError(f"graph {self.graph_name!r} does not exist; load() it")
        return StoreError(f"query failed: {text}")

    def _schema_rows(self, what: str) -> list[str]:
        if not self.exists():
            return []
        return [str(row[0]) for row in self._graph.ro_query(f"CALL db.{what}()").result_set]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._owns_connection:
            with contextlib.suppress(Exception):
                self._db.connection.close()
