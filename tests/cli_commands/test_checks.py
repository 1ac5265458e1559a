"""ace_lab.cli_commands.checks: the graph store setting is checked before a run of a method
that reads the graph through Cypher (``MethodSpec.needs_store``), and only then."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ace_lab.cli_commands.checks import check_store
from ace_lab.config import GraphSettings, Settings
from ace_lab.graph.store import StoreError
from ace_lab.registry import spec

STORE_METHOD = "arcrag"
PLAIN_METHOD = "naive"


def _with_store(url: str) -> Settings:
    return replace(Settings(), graph=GraphSettings(store=url))


def test_the_methods_checked_are_the_ones_that_need_the_store() -> None:
    assert spec(STORE_METHOD).needs_store and not spec(PLAIN_METHOD).needs_store


def test_a_store_of_no_backend_fails_before_a_store_method_runs() -> None:
    with pytest.raises(StoreError, match="not understood; use embedded"):
        check_store(_with_store("http://h"), [PLAIN_METHOD, STORE_METHOD])


def test_methods_without_the_store_never_read_its_setting() -> None:
    check_store(_with_store("http://h"), [PLAIN_METHOD])
    check_store(_with_store("bolt://h"), [STORE_METHOD])  # parsed only: nothing is opened
