"""The response cache under concurrent writer processes: nothing lost or corrupt, integrity_check
ok (counts: ``tests.reliability.scale``)."""

from __future__ import annotations

import pytest

from tests.reliability.cache_load import ROW, measure
from tests.reliability.scale import full_scale


@pytest.mark.reliability
def test_concurrent_writers_lose_nothing():
    (row,) = measure(full_scale())
    assert row["property"] == ROW
    assert row["attempts"] == (8_000 if full_scale() else 400)
    assert row["failed"] == 0 and row["held"] == row["attempts"], row
    assert "integrity_check ok" in row["note"]
