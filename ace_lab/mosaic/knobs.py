"""MOSAIC's what-if controls: the analyzer's per-query policy (the paper's, whose reply is the
controls, ``mosaic``, or six signals mapped to the controls, ``mosaic:signals``), one fixed
width (``mosaic-fixed:narrow``) or a fixed evidence budget × depth cap
(``mosaic-budget-matched:12x3``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from ace_lab.bounded import field_bounds
from ace_lab.methods.names import MethodName, parse
from ace_lab.methods.plugin import Knob, WhatIfControls
from ace_lab.mosaic.policy import BUDGET_MATCHED_DEFAULT, FIXED_POLICIES, ExplorationPolicy
from ace_lab.mosaic.specs import canonical

#: MOSAIC's policy choices: the analyzer, the fixed widths, or budget × depth.
MOSAIC_WIDTHS = ("analyzer", "signals", *FIXED_POLICIES, "budget")


def _range(field: str) -> tuple[int, int]:
    """The bounds of one ``ExplorationPolicy`` field (the sliders' range)."""
    bounds = field_bounds(next(f for f in fields(ExplorationPolicy) if f.name == field))
    assert bounds is not None and bounds.lo is not None and bounds.hi is not None
    return int(bounds.lo), int(bounds.hi)


def mosaic_ranges() -> dict[str, tuple[int, int]]:
    """The slider ranges of MOSAIC's evidence budget and depth cap."""
    return {"budget": _range("evidence_budget"), "depth": _range("max_depth")}


def mosaic_name(
    width: str = "analyzer",
    budget: int = BUDGET_MATCHED_DEFAULT[0],
    depth: int = BUDGET_MATCHED_DEFAULT[1],
) -> str:
    """``mosaic``, ``mosaic:signals``, ``mosaic-fixed:<width>`` or
    ``mosaic-budget-matched:<budget>x<depth>``."""
    if width not in MOSAIC_WIDTHS:
        raise ValueError(f"unknown MOSAIC width {width!r}; use one of {MOSAIC_WIDTHS}")
    if width == "analyzer":
        return "mosaic"
    if width == "signals":
        return "mosaic:signals"
    policy = f"{budget}x{depth}" if width == "budget" else width
    return str(canonical(parse(f"mosaic>{policy}")))


def _values(parts: MethodName) -> dict[str, Any]:
    """The controls of a MOSAIC name."""
    values: dict[str, Any] = {}
    if parts.head == "mosaic-budget-matched":
        budget, depth = (parts.variant or "x".join(map(str, BUDGET_MATCHED_DEFAULT))).split("x")
        values |= {"budget": int(budget), "depth": int(depth)}
    widths = {"mosaic": "analyzer", "mosaic-budget-matched": "budget"}
    width = widths.get(parts.head, parts.variant)
    return values | {"width": "signals" if parts.variant == "signals" else width}


def _name(values: Mapping[str, Any]) -> str:
    return mosaic_name(values["width"], values["budget"], values["depth"])


_RANGES = mosaic_ranges()
CONTROLS = WhatIfControls(
    knobs=(
        Knob("width", "toggles", "policy", "analyzer", options=MOSAIC_WIDTHS),
        Knob("budget", "slider", "budget", 12, low=_RANGES["budget"][0], high=_RANGES["budget"][1]),
        Knob("depth", "slider", "depth", 3, low=_RANGES["depth"][0], high=_RANGES["depth"][1]),
    ),
    name_of=_name,
    values_of=_values,
)
