"""Memory and time to build the hybrid index over the 2Wiki corpus (all 6,119 passages under
``ACE_LAB_RELIABILITY=full``, the first 500 otherwise), under a memory ceiling."""

from __future__ import annotations

import pytest

from tests.reliability.index_scale import ROW, measure, missing_reason
from tests.reliability.scale import full_scale


@pytest.mark.reliability
def test_the_hybrid_index_builds_under_the_memory_ceiling():
    if (reason := missing_reason()) is not None:
        pytest.skip(reason)
    (row,) = measure(full_scale())
    assert row["property"] == ROW
    assert (row["attempts"], row["held"], row["failed"]) == (1, 1, 0), row
