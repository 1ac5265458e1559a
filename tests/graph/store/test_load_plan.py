"""ace_lab.graph.store.load_plan: names in the loading Cypher."""

from __future__ import annotations

import pytest

from ace_lab.graph.store import StoreError, cypher_name


def test_cypher_name_quotes_schema_types() -> None:
    assert cypher_name("Sports Team") == "`Sports Team`"
    assert cypher_name("A`B") == "`A_B`"
    with pytest.raises(StoreError):
        cypher_name("")
