"""Fixtures of the graph builders' tests."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.graphs import toy_chunk_list


@pytest.fixture(scope="session")
def first_toy_chunks() -> list[Any]:
    """The first three toy chunks: the ones the OpenIE and typed scripts have answers for."""
    return toy_chunk_list()[:3]
