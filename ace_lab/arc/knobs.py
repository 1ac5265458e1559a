"""ArcRAG's what-if controls: its stages (the head), retries, passes, graph family and the
``strict`` and ``grammar`` switches (``arcrag:strict+grammar+r2p3@openie``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ace_lab.arc.budget import Budget
from ace_lab.arc.names import ARC_HEADS, FAMILIES
from ace_lab.arc.specs import resolve, variant_tokens
from ace_lab.methods.names import MethodName, parse
from ace_lab.methods.plugin import Knob, WhatIfControls

#: ArcRAG's stage choices (name heads) and graph families.
ARC_HEAD_CHOICES = tuple(ARC_HEADS)
ARC_FAMILY_CHOICES = tuple(FAMILIES)


def arc_name(
    head: str = "arcrag",
    retries: int = 3,
    passes: int = 6,
    family: str = "typed",
    *,
    strict: bool = False,
    grammar: bool = False,
) -> str:
    """``<head>:[strict+][grammar+]r<retries>p<passes>[@family]`` (the typed graph is ArcRAG's
    default; Direct-Cypher has nothing ``strict`` turns off, so the switch is ignored there)."""
    if head not in ARC_HEADS:
        raise ValueError(f"unknown ArcRAG head {head!r}; use one of {ARC_HEAD_CHOICES}")
    strict = strict and ARC_HEADS[head][0] != "direct"
    tokens = [t for t, on in (("strict", strict), ("grammar", grammar)) if on]
    suffix = "" if family == "typed" else f"@{family}"
    return resolve(parse(f"{head}:{'+'.join([*tokens, f'r{retries}p{passes}'])}{suffix}")).name


def _values(parts: MethodName) -> dict[str, Any]:
    """The controls of an ArcRAG name."""
    switches, label = variant_tokens(str(parts), parts.variant)
    budget = Budget.parse(label, Budget()) if label else Budget()
    return {
        "head": parts.head,
        "retries": budget.retries,
        "passes": budget.passes,
        "family": parts.family or "typed",
        "strict": "strict" in switches,
        "grammar": "grammar" in switches,
    }


def _name(values: Mapping[str, Any]) -> str:
    return arc_name(
        values["head"],
        values["retries"],
        values["passes"],
        values["family"],
        strict=values["strict"],
        grammar=values["grammar"],
    )


_BUDGET = Budget()
CONTROLS = WhatIfControls(
    knobs=(
        Knob("head", "dropdown", "stages", "arcrag", options=ARC_HEAD_CHOICES),
        Knob("retries", "slider", "retries", _BUDGET.retries, low=1, high=5),
        Knob("passes", "slider", "passes", _BUDGET.passes, low=1, high=_BUDGET.passes),
        Knob("family", "toggles", "graph", "typed", options=ARC_FAMILY_CHOICES),
        Knob("strict", "checkbox", "strict (no template, no fallback)", False),
        Knob("grammar", "checkbox", "grammar-constrained Cypher", False),
    ),
    name_of=_name,
    values_of=_values,
)
