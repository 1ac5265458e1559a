"""ArcRAG's method heads and graph families (``ace_lab.registry`` parses and resolves names).

A name is ``<head>[:<variant>][@<family>]``: the head picks the stages (``arcrag``
Explorer + Planner + Generator, ``arcrag-explorer`` Explorer + Generator, ``arcrag-generator``
Generator only, ``direct-cypher`` the Direct-Cypher agent); the variant is ``+``-joined tokens,
the :data:`SWITCHES` in their order and then a budget label that overrides retries and passes
(``arcrag:r3p5``, ``arcrag:strict``, ``arcrag:strict+r3p5``); the suffix picks the graph
(``@typed``, the default, or ``@openie``). Direct-Cypher's own budget is one attempt and one
pass.
"""

from __future__ import annotations

#: Head → (components, one-line description).
ARC_HEADS: dict[str, tuple[str, str]] = {
    "arcrag": ("full", "ArcRAG: Explorer + Planner + Generator over read-only Cypher"),
    "arcrag-explorer": ("explorer+generator", "ArcRAG ablation: Explorer + Generator, no Planner"),
    "arcrag-generator": ("generator", "ArcRAG ablation: Generator only (retrieval, no Explorer)"),
    "direct-cypher": ("direct", "Direct-Cypher: Cypher from the question and the schema, 1 try"),
}
#: ``openie-bare``: the OpenIE graph without provenance (the paper's; ace_lab/graph/bare.py).
FAMILIES = ("typed", "openie", "openie-bare")
#: Variant tokens that switch a stage, in the order a name writes them: ``strict`` is the
#: paper's ArcRAG (no scan template, no fallback passages: ``ArcConfig.template`` and
#: ``.fallback`` off); ``grammar`` is schema-constrained decoding (``ArcConfig.grammar``);
#: ``patterns`` narrows the grammar to the hops the graph holds (``ArcConfig.patterns``);
#: ``judge`` samples the sufficiency judgement at the paper's temperature 1.0
#: (``ArcConfig.judge_temperature``; greedy otherwise, like every other agent call here).
SWITCHES = ("strict", "grammar", "patterns", "judge")
#: Variants registered beside each head's default, on every graph family.
REGISTERED_VARIANTS: dict[str, tuple[str, ...]] = {"arcrag": ("strict",)}


def arc_name(head: str, variant: str = "", family: str = "typed") -> str:
    """The name of ``head`` with ``variant`` on ``family`` (``@typed`` is left implicit)."""
    return head + (f":{variant}" if variant else "") + ("" if family == "typed" else f"@{family}")


#: The registered names: every head, and its registered variants, on every graph family.
ARC_METHODS: tuple[str, ...] = tuple(
    arc_name(h, v, f)
    for f in FAMILIES
    for h in ARC_HEADS
    for v in ("", *REGISTERED_VARIANTS.get(h, ()))
)
