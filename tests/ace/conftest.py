"""Fixtures of the ACE tests."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def embedder() -> Any:
    """The process-wide default embedder (real offline MiniLM), as methods get it."""
    from ace_lab.embed import get_embedder

    return get_embedder()
