"""Where the graph store lives, as one setting: ``ACE_LAB_GRAPH_STORE`` (or ``--store``).

The forms come from the backend table (:mod:`~ace_lab.graph.store.backends`):

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

from dataclasses import dataclass
from urllib.parse import urlsplit

from ace_lab.config import env_name
from ace_lab.graph.store.backends import (
    BACKENDS,
    backend_for_scheme,
    default_backend,
    store_forms,
)
from ace_lab.graph.store.errors import StoreError
from ace_lab.graph.store.openers import Opened, graph_fingerprint, server_graph_name
from ace_lab.graph.tables import GraphTables

__all__ = [
    "PASSWORD_ENV",
    "StoreURL",
    "graph_fingerprint",
    "open_graph_store",
    "parse_store_url",
    "server_graph_name",
]

PASSWORD_ENV = env_name("graph", "store_password")


@dataclass(frozen=True)
class StoreURL:
    """A parsed store setting; ``str()`` is safe to print (it never holds a password)."""

    kind: str  # a key of BACKENDS: "embedded" | "falkordb" | "bolt" | ...
    host: str = ""
    port: int = 0
    name: str = ""  # the FalkorDB graph or the Bolt database ("": derived / server default)
    user: str = ""

    def __str__(self) -> str:
        if not BACKENDS[self.kind].served:
            return self.kind
        user = f"{self.user}@" if self.user else ""
        name = f"/{self.name}" if self.name else ""
        return f"{BACKENDS[self.kind].schemes[0]}://{user}{self.host}:{self.port}{name}"


def parse_store_url(text: str | None) -> StoreURL:
    """The store ``text`` names; StoreError with one line for anything else."""
    text = (text or "").strip()
    if not text:
        return StoreURL(default_backend().kind)
    if text in BACKENDS and not BACKENDS[text].served:
        return StoreURL(text)
    parts = urlsplit(text)
    backend = backend_for_scheme(parts.scheme)
    if backend is None or not parts.hostname:
        raise StoreError(f"graph store {text!r} not understood; use {store_forms()}")
    if parts.password is not None:
        raise StoreError(
            f"graph store URL holds a password: put it in {PASSWORD_ENV}, not in the URL"
        )
    try:
        port = parts.port or backend.default_port
    except ValueError as exc:
        raise StoreError(f"graph store {text!r}: {exc}") from None
    name = parts.path.strip("/")
    if "/" in name or (parts.query or parts.fragment):
        raise StoreError(f"graph store {text!r} not understood; use {store_forms()}")
    return StoreURL(backend.kind, parts.hostname, port, name, parts.username or "")


def open_graph_store(
    url: StoreURL,
    tables: GraphTables,
    key: str,
    *,
    password: str | None = None,
    replace: bool = False,
) -> Opened:
    """A store holding ``tables`` and the function that closes it (and removes what it made),
    opened by ``url``'s backend.

    ``key`` names the build (e.g. ``<slice>/<family>``) for the graph name on a server.
    """
    return BACKENDS[url.kind].opener(url, tables, key, password, replace)
