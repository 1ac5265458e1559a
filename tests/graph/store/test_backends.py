"""ace_lab.graph.store.backends: one row per backend, and a new store is its row plus its class.

The test-only backend below is registered the way a real one would be (a row in
``BACKENDS``): the URL parser, the forms printed in errors and help, and the factory
(``open_graph_store``) then know it without another edit; the ``graph.store`` setting
accepts its URLs by their shape.
"""

from __future__ import annotations

import shutil
import tempfile

import pytest

from ace_lab.config import GraphSettings
from ace_lab.graph.store import BACKENDS, EmbeddedFalkorDB, GraphStore, StoreBackend, StoreError
from ace_lab.graph.store.backends import backend_for_scheme, default_backend, store_forms
from ace_lab.graph.store.openers import Opened, loaded
from ace_lab.graph.store.url import StoreURL, open_graph_store, parse_store_url
from ace_lab.graph.tables import GraphTables
from tests.support.graphs import small_tables


class ToyStore(EmbeddedFalkorDB):
    """The test backend's class: a private FalkorDB that remembers the URL it was opened by."""

    opened_by: StoreURL | None = None


def open_toy(
    url: StoreURL, tables: GraphTables, key: str, password: str | None, replace: bool
) -> Opened:
    folder = tempfile.mkdtemp(prefix="ace-lab-toy-")
    store = ToyStore(folder, graph=url.name or "toy")
    store.opened_by = url

    def close() -> None:
        store.close()
        shutil.rmtree(folder, ignore_errors=True)

    return loaded(store, tables, close), close


TOY = StoreBackend("toy", ("toy", "toys"), 4242, "graph", ToyStore, open_toy)


@pytest.fixture
def toy_backend(monkeypatch: pytest.MonkeyPatch) -> StoreBackend:
    monkeypatch.setitem(BACKENDS, TOY.kind, TOY)
    return TOY


def test_the_table_names_every_shipped_backend_once() -> None:
    assert list(BACKENDS) == ["embedded", "falkordb", "bolt"]
    assert default_backend().kind == "embedded" and not default_backend().served
    schemes = [s for row in BACKENDS.values() for s in row.schemes]
    assert len(schemes) == len(set(schemes))
    for row in BACKENDS.values():
        assert issubclass(row.store_class, GraphStore) and callable(row.opener)
    assert backend_for_scheme("NEO4J") is BACKENDS["bolt"] and backend_for_scheme("http") is None
    assert store_forms() == (
        "embedded, falkordb://host:port[/graph] or bolt://[user@]host:port[/database]"
    )


def test_a_new_row_is_parsed_printed_and_accepted(toy_backend: StoreBackend) -> None:
    url = parse_store_url("toys://box/g1")
    assert url == StoreURL("toy", "box", 4242, "g1")
    assert str(url) == "toy://box:4242/g1" and parse_store_url(str(url)) == url
    assert "toy://host:port[/graph]" in store_forms()
    assert GraphSettings.field_problem("store", "toy://box") is None
    with pytest.raises(StoreError, match="toy://host:port"):
        parse_store_url("nothing://box")


def test_without_its_row_the_scheme_is_unknown() -> None:
    with pytest.raises(StoreError, match="not understood"):
        parse_store_url("toy://box")


@pytest.mark.integration
def test_a_new_row_is_opened_by_the_factory(toy_backend: StoreBackend) -> None:
    url = parse_store_url("toy://box/g1")
    store, close = open_graph_store(url, small_tables(), "toy/typed")
    try:
        assert isinstance(store, ToyStore) and store.opened_by == url
        assert store.count() == (7, 6)
    finally:
        close()
    assert not store.server.running
