"""Every row of ``BACKENDS`` keeps the store contract: each of its URL schemes parses to it and
prints back, its form is in the help text, its class is a ``GraphStore`` and its opener is
callable; a served row has a port, the one without a server is the default."""

from __future__ import annotations

import pytest

from ace_lab.graph.store import BACKENDS, GraphStore
from ace_lab.graph.store.backends import backend_for_scheme, default_backend, store_forms
from ace_lab.graph.store.url import parse_store_url

ROWS = list(BACKENDS.values())


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.kind)
def test_every_backend_row_keeps_the_contract(row):
    assert issubclass(row.store_class, GraphStore) and callable(row.opener)
    assert row.form in store_forms()
    if not row.served:
        assert row is default_backend() and not row.schemes
        assert parse_store_url(row.kind).kind == row.kind
        return
    user = "reader@" if row.user else ""
    for scheme in row.schemes:
        assert backend_for_scheme(scheme.upper()) is row
        url = parse_store_url(f"{scheme}://{user}db.example:{row.default_port + 1}/g")
        assert (url.kind, url.host, url.port, url.name) == (
            row.kind,
            "db.example",
            row.default_port + 1,
            "g",
        )
        assert parse_store_url(str(url)) == url
        assert parse_store_url(f"{scheme}://db.example").port == row.default_port
