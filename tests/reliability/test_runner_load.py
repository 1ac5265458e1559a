"""The evaluation runner at concurrency 4 against the local smoke-tier server: every record
written once, no error (starts the LLM server: integration)."""

from __future__ import annotations

import pytest

from tests.reliability.runner_load import ROW, measure
from tests.reliability.scale import full_scale


@pytest.mark.reliability
@pytest.mark.integration
def test_runner_at_concurrency_4_writes_every_record_once():
    (row,) = measure(full_scale())
    assert row["property"] == ROW
    assert row["failed"] == 0 and row["held"] == row["attempts"] == 8, row
