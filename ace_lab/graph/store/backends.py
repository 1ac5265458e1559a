"""The graph store backends, one row each: a new store is its row here plus its class.

URL parsing (:func:`~ace_lab.graph.store.url.parse_store_url`), the forms its errors and the
``--store`` help print, and the factory (:func:`~ace_lab.graph.store.url.open_graph_store`)
all read :data:`BACKENDS`; nothing else names a scheme or a port. (The ``graph.store``
setting lives in the core layer, below this one: it checks the shape of a store URL and
leaves the scheme to this table.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ace_lab.graph.store.base import GraphStore
from ace_lab.graph.store.bolt import BoltStore
from ace_lab.graph.store.falkordb import FalkorDBStore
from ace_lab.graph.store.openers import Opened, open_bolt, open_embedded, open_falkordb
from ace_lab.graph.store.process import EmbeddedFalkorDB
from ace_lab.graph.tables import GraphTables

if TYPE_CHECKING:
    from ace_lab.graph.store.url import StoreURL

#: ``(url, tables, key, password, replace) -> (store, close)`` (:mod:`.openers`).
Opener = Callable[["StoreURL", GraphTables, str, str | None, bool], Opened]


@dataclass(frozen=True)
class StoreBackend:
    """One graph store backend.

    ``kind`` is the name a parsed URL carries; ``schemes`` the URL schemes that name it (the
    first is the one printed); ``default_port`` 0 marks a backend without a server, written
    as its bare kind (``embedded``); ``name_part`` says what the URL's path names.
    """

    kind: str
    schemes: tuple[str, ...]
    default_port: int
    name_part: str
    store_class: type[GraphStore]
    opener: Opener
    user: bool = False  # whether the URL may name a user

    @property
    def served(self) -> bool:
        return self.default_port > 0

    @property
    def form(self) -> str:
        """How a setting names this backend, e.g. ``falkordb://host:port[/graph]``."""
        if not self.served:
            return self.kind
        user = "[user@]" if self.user else ""
        return f"{self.schemes[0]}://{user}host:port[/{self.name_part}]"


#: Every backend, by kind; the first is the default (``embedded``).
BACKENDS: dict[str, StoreBackend] = {
    row.kind: row
    for row in (
        StoreBackend("embedded", (), 0, "", EmbeddedFalkorDB, open_embedded),
        StoreBackend(
            "falkordb", ("falkordb", "redis"), 6379, "graph", FalkorDBStore, open_falkordb
        ),
        StoreBackend("bolt", ("bolt", "neo4j"), 7687, "database", BoltStore, open_bolt, user=True),
    )
}


def default_backend() -> StoreBackend:
    return next(iter(BACKENDS.values()))


def backend_for_scheme(scheme: str) -> StoreBackend | None:
    """The served backend a URL scheme names (None for an unknown scheme)."""
    scheme = scheme.lower()
    return next((row for row in BACKENDS.values() if scheme in row.schemes), None)


def store_forms() -> str:
    """Every form a store setting may take, for help texts and errors."""
    forms = [row.form for row in BACKENDS.values()]
    return ", ".join(forms[:-1]) + f" or {forms[-1]}" if len(forms) > 1 else forms[0]
