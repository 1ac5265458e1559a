"""ArcRAG's method names: configuration, budget and graph family in one string.

``<head>[:r<retries>p<passes>][@<family>]``: the head picks the stages (``arcrag`` Explorer +
Planner + Generator, ``arcrag-explorer`` Explorer + Generator, ``arcrag-generator`` Generator
only, ``direct-cypher`` the Direct-Cypher agent), the budget label overrides retries and passes
(``arcrag:r3p5``), the suffix picks the graph (``@typed``, the default, or ``@openie``).
Direct-Cypher's own budget is one attempt and one pass.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ace_lab.arc.budget import Budget

#: Head → (components, one-line description).
ARC_HEADS: dict[str, tuple[str, str]] = {
    "arcrag": ("full", "ArcRAG: Explorer + Planner + Generator over read-only Cypher"),
    "arcrag-explorer": ("explorer+generator", "ArcRAG ablation: Explorer + Generator, no Planner"),
    "arcrag-generator": ("generator", "ArcRAG ablation: Generator only (retrieval, no Explorer)"),
    "direct-cypher": ("direct", "Direct-Cypher: Cypher from the question and the schema, 1 try"),
}
FAMILIES = ("typed", "openie")
#: The registered names: every head on both graph families.
ARC_METHODS: tuple[str, ...] = tuple(
    h if f == "typed" else f"{h}@{f}" for f in FAMILIES for h in ARC_HEADS
)
_NAME = re.compile(r"(?P<head>[a-z-]+)(?::(?P<budget>r\d+p\d+))?(?:@(?P<family>\w+))?\Z")


def head_of(name: str) -> str:
    return name.partition("@")[0].partition(":")[0]


def parse_name(name: str) -> tuple[str, Budget, str, str]:
    """``(components, budget, family, description)`` of an ArcRAG method name."""
    m = _NAME.match(name)
    if m is None or m.group("head") not in ARC_HEADS:
        raise KeyError(f"unknown ArcRAG method {name!r}; heads: {', '.join(ARC_HEADS)}")
    components, about = ARC_HEADS[m.group("head")]
    family = m.group("family") or "typed"
    if family not in FAMILIES:
        raise KeyError(f"unknown graph family {family!r} in {name!r}; use @typed or @openie")
    base = replace(Budget(), retries=1, passes=1) if components == "direct" else Budget()
    budget = Budget.parse(m.group("budget"), base) if m.group("budget") else base
    return components, budget, family, f"{about} ({family} graph, budget {budget.label})"
