"""Secrets never written: a sentinel key and URL password appear in no file, repr, error or log."""

from __future__ import annotations

import base64

import pytest

from tests.reliability.scale import full_scale
from tests.reliability.secrets import KEY, PASSWORD, USER, leaks, measure

pytestmark = pytest.mark.reliability


def test_secrets_are_never_written_shown_or_logged() -> None:
    [row] = measure(full_scale())
    assert row["failed"] == 0, row["note"]
    assert row["held"] == row["attempts"] >= 100, row["note"]


def test_a_leak_is_seen_in_every_form_the_secret_travels_in() -> None:
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    for text in (f"Bearer {KEY}", f"http://{USER}:{PASSWORD}@h/v1", f"Basic {basic}"):
        assert leaks(text) and leaks(text.encode())
    assert not leaks("http://***@h/v1 api_key='***'")
