"""The bounded-configuration helper: validation, clamping of untrusted values, description."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass

import pytest

from ace_lab.bounded import Adjustment, Bounded, ConfigError, bounded


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
