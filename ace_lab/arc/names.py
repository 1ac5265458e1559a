"""ArcRAG's method heads and graph families (``ace_lab.registry`` parses and resolves names).

A name is ``<head>[:r<retries>p<passes>][@<family>]``: the head picks the stages (``arcrag``
Explorer + Planner + Generator, ``arcrag-explorer`` Explorer + Generator, ``arcrag-generator``
Generator only, ``direct-cypher`` the Direct-Cypher agent), the budget label overrides retries
and passes (``arcrag:r3p5``), the suffix picks the graph (``@typed``, the default, or
``@openie``). Direct-Cypher's own budget is one attempt and one pass.
"""

from __future__ import annotations

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
