"""ace_lab.graph.names: one normalisation of entity names, one id per entity, in every family."""

from __future__ import annotations

import pytest

from ace_lab.graph.names import entity_id, normalise_name


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("The Varrowmere Lantern Works", "varrowmere lantern works"),
        ("“Varrowmere  Lantern\nWorks”.", "varrowmere lantern works"),
        ("Ｋｅｓｔｅｒｈｏｌｍ", "kesterholm"),
        ("Lantern Works (company)", "lantern works (company)"),
        ("'Obama, Barack'", "obama, barack"),
        ("Theodore", "theodore"),
        ("C++", "c++"),
        ("...", ""),
    ],
)
def test_normalise_name(raw: str, expected: str) -> None:
    assert normalise_name(raw) == expected


def test_entity_ids() -> None:
    assert entity_id("The Lake Varrow") == "ent:lake varrow"
    assert entity_id("  ,") == ""
