"""The bounded-configuration helper: validation, clamping of untrusted values, description."""

from __future__ import annotations

import dataclasses
from dataclasses import FrozenInstanceError, dataclass

import pytest

from ace_lab.bounded import (
    Adjustment,
    Bounded,
    ConfigError,
    bounded,
    field_bounds,
    field_default,
)


@dataclass(frozen=True)
class Knobs(Bounded):
    seeds: int = bounded(8, lo=5, hi=12, help="seed entities")
    threshold: float = bounded(0.35, lo=0.0, hi=1.0, help="completeness to stop at")
    depth: str = bounded("medium", choices=("shallow", "medium", "deep"), help="stopping depth")
    branches: tuple[str, ...] = bounded(
        ("depth",), subset_of=("depth", "breadth"), nonempty=True, help="branches"
    )
    connectors: bool = bounded(False, help="explore connectors")
    cap: int | None = bounded(None, lo=1, hi=10, help="optional cap")


def test_defaults_validate_and_instances_are_frozen():
    knobs = Knobs()
    assert knobs.seeds == 8 and knobs.cap is None
    with pytest.raises(FrozenInstanceError):
        knobs.seeds = 9  # type: ignore[misc]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"seeds": 13}, "seeds must be in [5, 12]"),
        ({"seeds": 7.5}, "whole number"),
        ({"threshold": float("nan")}, "must be a number"),
        ({"depth": "abyssal"}, "must be one of"),
        ({"branches": ("depth", "sideways")}, "unknown values ['sideways']"),
        ({"branches": ()}, "must not be empty"),
        ({"connectors": "yes"}, "true or false"),
        ({"seeds": True}, "must be a number"),
        ({"cap": 0}, "cap must be in [1, 10]"),
    ],
)
def test_construction_rejects_out_of_bounds_values(kwargs, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Knobs(**kwargs)


def test_clamp_repairs_untrusted_values_and_reports_each_change():
    knobs, changes = Knobs.clamp(
        {
            "seeds": 40,
            "threshold": -3,
            "depth": "abyssal",
            "branches": ["breadth", "depth"],
            "connectors": "yes",
            "colour": "red",
        }
    )
    assert (knobs.seeds, knobs.threshold, knobs.depth) == (12, 0.0, "medium")
    assert knobs.branches == ("breadth", "depth") and knobs.connectors is False
    by_field = {c.field: c for c in changes}
    assert by_field["seeds"] == Adjustment("seeds", 40, 12, "clamped")
    assert by_field["threshold"].reason == "clamped"
    assert by_field["depth"] == Adjustment("depth", "abyssal", "medium", "defaulted")
    assert by_field["connectors"].reason == "defaulted"
    assert by_field["colour"].reason == "unknown field"
    assert by_field["cap"].reason == "missing" and "branches" not in by_field
    assert str(by_field["seeds"]) == "seeds: 40 → 12 (clamped)"


def test_clamp_of_nothing_is_the_default_and_whole_floats_become_ints():
    knobs, changes = Knobs.clamp(None)
    assert knobs == Knobs() and {c.reason for c in changes} == {"missing"}
    knobs, _ = Knobs.clamp({"seeds": 9.0, "cap": None})
    assert knobs.seeds == 9 and isinstance(knobs.seeds, int) and knobs.cap is None


def test_describe_lists_every_field_with_bounds_and_help():
    rows = {r["field"]: r for r in Knobs.describe(Knobs(seeds=6))}
    assert list(rows) == ["seeds", "threshold", "depth", "branches", "connectors", "cap"]
    assert rows["seeds"]["value"] == 6 and rows["seeds"]["default"] == 8
    assert rows["seeds"]["accepts"] == "[5, 12]"
    assert rows["depth"]["accepts"] == "shallow | medium | deep"
    assert rows["branches"]["accepts"].startswith("⊆ {depth, breadth}")
    assert rows["connectors"]["help"] == "explore connectors"
    assert rows["connectors"]["accepts"] == "true | false"
    assert rows["cap"]["accepts"] == "[1, 10] | None"
    assert Knobs(seeds=6).changed() == {"seeds": 6}


def test_bounded_fields_need_help_and_immutable_defaults():
    with pytest.raises(ValueError, match="help"):
        bounded(1, help="")
    with pytest.raises(TypeError, match="immutable"):
        bounded([1], help="a list")


def _even(value: int) -> str | None:
    return None if value % 2 == 0 else "must be even"


@dataclass(frozen=True)
class Extras(Bounded):
    size: int = bounded(2, check=_even, accepts="an even number", help="an even size")
    token: str | None = bounded(None, redact=lambda _: "***", help="a secret")
    tags: tuple[str, ...] = bounded(factory=lambda: ("a",), help="made by a factory")


def test_a_check_decides_and_accepts_says_so_in_words():
    with pytest.raises(ConfigError, match="size must be even, got 3"):
        Extras(size=3)
    assert Extras.describe_field("size")["accepts"] == "an even number"
    assert Extras.field_problem("size", 5) == "must be even"
    assert Extras.field_problem("size", 4) is None and Extras.field_problem("token", None) is None


def test_a_redacted_value_never_shows_in_messages():
    assert Extras.describe_field("token")["accepts"] == "any | None"
    b = field_bounds(next(f for f in dataclasses.fields(Extras) if f.name == "token"))
    assert b is not None and b.show("sk-1") == "'***'" and b.show(None) == "None"


def test_a_factory_default_is_made_per_instance_and_described():
    assert Extras().tags == ("a",) and Extras.describe_field("tags")["default"] == ("a",)
    assert field_default(next(f for f in dataclasses.fields(Extras) if f.name == "tags")) == ("a",)
    assert Extras.clamp({})[0] == Extras() and Extras(tags=("b",)).changed() == {"tags": ("b",)}
    with pytest.raises(TypeError, match="exactly one"):
        bounded(1, factory=tuple, help="both")
    with pytest.raises(TypeError, match="exactly one"):
        bounded(help="neither")
