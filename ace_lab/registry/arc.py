"""ArcRAG's names: ``<head>[:r<retries>p<passes>][@typed|@openie]``.

The head picks the stages (:data:`ace_lab.arc.names.ARC_HEADS`: ``arcrag`` Explorer + Planner +
Generator, ``arcrag-explorer``, ``arcrag-generator``, ``direct-cypher``), the variant overrides
retries and passes (``arcrag:r3p5``), the family picks the graph (``@typed``, the default, or
``@openie``). Direct-Cypher's own budget is one attempt and one pass.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ace_lab.arc.budget import Budget
from ace_lab.arc.method import ArcConfig, ArcRAG
from ace_lab.arc.names import ARC_HEADS, ARC_METHODS, FAMILIES
from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.registry.method_spec import ARC_REPORT, MethodSpec
from ace_lab.registry.names import MethodName, parse
from ace_lab.retrieval import RetrievalGraph

_BUDGET = re.compile(r"r\d+p\d+")


def is_arc(head: str) -> bool:
    """Whether ArcRAG owns the name head ``head``."""
    return head in ARC_HEADS


def resolve(parts: MethodName) -> MethodSpec:
    """The spec of an ArcRAG name: its stages, budget and graph family (Cypher store)."""
    name = str(parts)
    if parts.policy or (parts.variant and _BUDGET.fullmatch(parts.variant) is None):
        raise KeyError(f"{name!r}: an ArcRAG name is <head>[:r<retries>p<passes>][@family]")
    components, about = ARC_HEADS[parts.head]
    family = parts.family or "typed"  # the graph ArcRAG was designed for
    if family not in FAMILIES:
        raise KeyError(f"unknown graph family {family!r} in {name!r}; use @typed or @openie")
    base = replace(Budget(), retries=1, passes=1) if components == "direct" else Budget()
    budget = Budget.parse(parts.variant, base) if parts.variant else base
    config = ArcConfig(components=components)

    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        return ArcRAG(graph, llm, config, budget, name=name)

    about = f"{about} ({family} graph, budget {budget.label})"
    return MethodSpec(name, family, factory, True, about, (config, budget), ARC_REPORT)


#: The registered ArcRAG methods: every head on both graph families.
ARC_SPECS: tuple[MethodSpec, ...] = tuple(resolve(parse(name)) for name in ARC_METHODS)
