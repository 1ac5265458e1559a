"""Opening a graph store by name: ``embedded`` (private FalkorDB), ``falkordb`` or ``bolt``."""

from __future__ import annotations

from typing import Any, Literal

from ace_lab.graph.store.base import GraphStore
from ace_lab.graph.store.bolt import BoltStore
from ace_lab.graph.store.falkordb import FalkorDBStore
from ace_lab.graph.store.process import EmbeddedFalkorDB

StoreKind = Literal["embedded", "falkordb", "bolt"]


def open_store(kind: StoreKind = "embedded", **kw: Any) -> GraphStore:
    """Open a store by name.

    ``embedded``: ``data_dir``, ``graph``; ``falkordb``: ``host``, ``port``, ``graph`` (plus
    client options); ``bolt``: ``uri``, ``auth``, ``database``.
    """
    if kind == "embedded":
        return EmbeddedFalkorDB(**kw)
    if kind == "falkordb":
        return FalkorDBStore.connect(**kw)
    if kind == "bolt":
        return BoltStore(**kw)
    raise ValueError(f"unknown store kind {kind!r}; expected embedded, falkordb or bolt")
