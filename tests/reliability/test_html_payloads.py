"""Corpus text in exported HTML never executes (see html_payloads.py)."""

from __future__ import annotations

import pytest

from tests.reliability.html_payloads import PAYLOADS, _executed, chromium, measure


@pytest.mark.reliability
def test_no_payload_executes_in_any_exported_page():
    if chromium() is None:
        pytest.skip("chromium is not installed (.ci/run installs it)")
    (row,) = measure(full=False)
    assert row["failed"] == 0 and row["attempts"] >= 6 * 9, row


def test_the_detector_sees_an_executed_payload():
    assert _executed('<html data-marker="0"><head><title>pwned</title></head></html>')
    assert _executed('<html data-marker="1"><title>payload view</title></html>')
    assert _executed("<html><title>payload view</title></html>")  # the probe never ran
    assert not _executed('<html data-marker="0"><title>payload view</title>&lt;p id="pwned"')
    assert len(PAYLOADS) >= 12
