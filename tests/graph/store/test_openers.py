"""ace_lab.graph.store.openers: build names and fingerprints, and a failed load closes the store.

Each backend's opener runs end to end in tests/graph/store/test_url.py (embedded, FalkorDB
server) and tests/graph/store/test_bolt.py (a Bolt server, when one is named).
"""

from __future__ import annotations

import pytest

from ace_lab.graph.store import GraphStore, StoreError
from ace_lab.graph.store.openers import graph_fingerprint, loaded, server_graph_name
from tests.support.graphs import small_tables


def test_names_and_fingerprints() -> None:
    assert server_graph_name("hotpot-n20-s0/typed") == "ace_lab__hotpot-n20-s0__typed"
    assert graph_fingerprint(small_tables()) == graph_fingerprint(small_tables())
    fewer = small_tables()
    fewer.nodes = fewer.nodes.iloc[:-1]
    assert graph_fingerprint(fewer) != graph_fingerprint(small_tables())


class RefusingStore:
    """A store whose load fails (the opener must close it, not leak a server)."""

    def load(self, tables: object) -> None:
        raise StoreError("server went away")


def test_a_failed_load_closes_the_store() -> None:
    closed: list[bool] = []
    store: GraphStore = RefusingStore()  # type: ignore[assignment]
    with pytest.raises(StoreError, match="went away"):
        loaded(store, small_tables(), lambda: closed.append(True))
    assert closed == [True]
