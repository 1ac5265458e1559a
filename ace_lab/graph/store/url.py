"""Where the graph store lives, as one setting: ``ACE_LAB_GRAPH_STORE`` (or ``--store``).

- ``embedded`` (default): a private FalkorDB server on a unix socket, started per graph;
- ``falkordb://host:port[/graph]``: a FalkorDB server; the graph is named after the build
  (``ace_lab__<slice>__<family>``) unless the URL names one;
- ``bolt://[user@]host:port[/database]``: Neo4j or Memgraph; the database must be empty or hold
  this graph (ace_lab never deletes what it did not write; ``replace`` clears it on purpose).

A password never goes in the URL (it would end up in logs and manifests): it comes from the
``graph.store_password`` setting (``ACE_LAB_GRAPH_STORE_PASSWORD``). :func:`open_graph_store`
loads the tables once: a server graph that already holds the same tables (same fingerprint) is
reused as it is.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from ace_lab.config import env_name
from ace_lab.graph.store.base import GraphStore
from ace_lab.graph.store.errors import StoreError
from ace_lab.graph.tables import GraphTables

PASSWORD_ENV = env_name("graph", "store_password")
_FORMS = "embedded, falkordb://host:port[/graph] or bolt://host:port[/database] (a user optional)"
_DEFAULT_PORTS = {"falkordb": 6379, "bolt": 7687}
_SCHEMES = {"falkordb": "falkordb", "redis": "falkordb", "bolt": "bolt", "neo4j": "bolt"}
#: Where a FalkorDB server keeps the fingerprint of the tables a graph was loaded from.
_FINGERPRINT_KEY = "ace_lab:fingerprint:{graph}"


@dataclass(frozen=True)
class StoreURL:
    """A parsed store setting; ``str()`` is safe to print (it never holds a password)."""

    kind: str  # "embedded" | "falkordb" | "bolt"
    host: str = ""
    port: int = 0
    name: str = ""  # the FalkorDB graph or the Bolt database ("": derived / server default)
    user: str = ""

    def __str__(self) -> str:
        if self.kind == "embedded":
            return "embedded"
        user = f"{self.user}@" if self.user else ""
        name = f"/{self.name}" if self.name else ""
        return f"{self.kind}://{user}{self.host}:{self.port}{name}"


def parse_store_url(text: str | None) -> StoreURL:
    """The store ``text`` names; StoreError with one line for anything else."""
    text = (text or "").strip()
    if text in ("", "embedded"):
        return StoreURL("embedded")
    parts = urlsplit(text)
    kind = _SCHEMES.get(parts.scheme.lower())
    if kind is None or not parts.hostname:
        raise StoreError(f"graph store {text!r} not understood; use {_FORMS}")
    if parts.password is not None:
        raise StoreError(
            f"graph store URL holds a password: put it in {PASSWORD_ENV}, not in the URL"
        )
    try:
        port = parts.port or _DEFAULT_PORTS[kind]
    except ValueError as exc:
        raise StoreError(f"graph store {text!r}: {exc}") from None
    name = parts.path.strip("/")
    if "/" in name or (parts.query or parts.fragment):
        raise StoreError(f"graph store {text!r} not understood; use {_FORMS}")
    return StoreURL(kind, parts.hostname, port, name, parts.username or "")


def graph_fingerprint(tables: GraphTables) -> str:
    """A short hash of the tables' node and edge ids: equal tables load to equal graphs."""
    digest = hashlib.sha256()
    for frame in (tables.nodes, tables.edges):
        digest.update(str(len(frame)).encode())
        for value in sorted(map(str, frame["id"])):
            digest.update(value.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()[:16]


def server_graph_name(key: str) -> str:
    """The FalkorDB graph name a build gets on a shared server (``ace_lab__<key>``)."""
    return "ace_lab__" + re.sub(r"[^A-Za-z0-9_.-]+", "__", key).strip("_")


def open_graph_store(
    url: StoreURL,
    tables: GraphTables,
    key: str,
    *,
    password: str | None = None,
    replace: bool = False,
) -> tuple[GraphStore, Callable[[], None]]:
    """A store holding ``tables`` and the function that closes it (and removes what it made).

    ``key`` names the build (e.g. ``<slice>/<family>``) for the graph name on a server.
    """
    if url.kind == "embedded":
        from ace_lab.graph.store.process import EmbeddedFalkorDB

        folder = tempfile.mkdtemp(prefix="ace-lab-store-")
        store = EmbeddedFalkorDB(folder, graph="g")

        def close() -> None:
            store.close()
            shutil.rmtree(folder, ignore_errors=True)

        return _loaded(store, tables, close), close
    if url.kind == "falkordb":
        return _falkordb(url, tables, key, password, replace)
    return _bolt(url, tables, password, replace)


def _loaded(store: GraphStore, tables: GraphTables, close: Callable[[], None]) -> GraphStore:
    try:
        store.load(tables)
    except BaseException:
        close()
        raise
    return store


def _falkordb(
    url: StoreURL, tables: GraphTables, key: str, password: str | None, replace: bool
) -> tuple[GraphStore, Callable[[], None]]:
    from ace_lab.graph.store.falkordb import FalkorDBStore

    name = url.name or server_graph_name(key)
    store = FalkorDBStore.connect(url.host, url.port, graph=name, password=password)
    marker = _FINGERPRINT_KEY.format(graph=name)
    connection = store._db.connection
    wanted = graph_fingerprint(tables)
    held = connection.get(marker)
    held = held.decode() if isinstance(held, bytes) else held
    if store.exists() and held == wanted:
        return store, store.close  # this build is already there: nothing to load
    if store.exists() and held is None and not replace:
        store.close()
        raise StoreError(
            f"graph {name!r} on {url.host}:{url.port} was not written by ace_lab; "
            "name another graph in the URL or pass --replace"
        )
    _loaded(store, tables, store.close)
    connection.set(marker, wanted)
    return store, store.close


def _bolt(
    url: StoreURL, tables: GraphTables, password: str | None, replace: bool
) -> tuple[GraphStore, Callable[[], None]]:
    from ace_lab.graph.store.bolt import BoltStore

    auth = (url.user, password or "") if url.user else None
    store = BoltStore(f"bolt://{url.host}:{url.port}", auth, url.name or None, replace=replace)
    if store.holds(tables):
        return store, store.close
    return _loaded(store, tables, store.close), store.close
