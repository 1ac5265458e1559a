"""How each graph store backend is opened and loaded with one build's tables.

An opener takes the parsed setting (:class:`~ace_lab.graph.store.url.StoreURL`), the tables,
the build's key, the password and whether a foreign graph may be replaced, and returns the
loaded store and the function that closes it (and removes what it made). A graph already on a
server that holds the same tables (same fingerprint) is reused as it is.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Callable
from typing import TYPE_CHECKING

from ace_lab.graph.store.base import GraphStore
from ace_lab.graph.store.bolt import BoltStore
from ace_lab.graph.store.errors import StoreError
from ace_lab.graph.store.falkordb import FalkorDBStore
from ace_lab.graph.store.process import EmbeddedFalkorDB
from ace_lab.graph.tables import GraphTables

if TYPE_CHECKING:
    from ace_lab.graph.store.url import StoreURL

#: What every opener returns: the loaded store and the function that closes it.
Opened = tuple[GraphStore, Callable[[], None]]
#: Where a FalkorDB server keeps the fingerprint of the tables a graph was loaded from.
FINGERPRINT_KEY = "ace_lab:fingerprint:{graph}"


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


def loaded(store: GraphStore, tables: GraphTables, close: Callable[[], None]) -> GraphStore:
    """``store`` holding ``tables``; closed (by ``close``) when loading fails."""
    try:
        store.load(tables)
    except BaseException:
        close()
        raise
    return store


def open_embedded(
    url: StoreURL, tables: GraphTables, key: str, password: str | None, replace: bool
) -> Opened:
    """A private FalkorDB server in a temporary folder, removed on close."""
    folder = tempfile.mkdtemp(prefix="ace-lab-store-")
    store = EmbeddedFalkorDB(folder, graph="g")

    def close() -> None:
        store.close()
        shutil.rmtree(folder, ignore_errors=True)

    return loaded(store, tables, close), close


def open_falkordb(
    url: StoreURL, tables: GraphTables, key: str, password: str | None, replace: bool
) -> Opened:
    """A graph on a FalkorDB server, named by the URL or after the build."""
    name = url.name or server_graph_name(key)
    store = FalkorDBStore.connect(url.host, url.port, graph=name, password=password)
    marker = FINGERPRINT_KEY.format(graph=name)
    wanted = graph_fingerprint(tables)
    held = store.server_value(marker)
    if store.exists() and held == wanted:
        return store, store.close  # this build is already there: nothing to load
    if store.exists() and held is None and not replace:
        store.close()
        raise StoreError(
            f"graph {name!r} on {url.host}:{url.port} was not written by ace_lab; "
            "name another graph in the URL or pass --replace"
        )
    loaded(store, tables, store.close)
    store.set_server_value(marker, wanted)
    return store, store.close


def open_bolt(
    url: StoreURL, tables: GraphTables, key: str, password: str | None, replace: bool
) -> Opened:
    """A Neo4j or Memgraph database: empty, or holding these tables already."""
    auth = (url.user, password or "") if url.user else None
    store = BoltStore(f"bolt://{url.host}:{url.port}", auth, url.name or None, replace=replace)
    if store.holds(tables):
        return store, store.close
    return loaded(store, tables, store.close), store.close
