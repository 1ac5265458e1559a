"""ArcRAG's names: ``<head>[:<token>+<token>…][@<family>]``.

The head picks the stages (:data:`ace_lab.arc.names.ARC_HEADS`: ``arcrag`` Explorer + Planner +
Generator, ``arcrag-explorer``, ``arcrag-generator``, ``direct-cypher``), the variant's tokens
switch stages (:data:`~ace_lab.arc.names.SWITCHES`: ``strict``, ``grammar``, ``patterns``, which
needs ``grammar``, and ``judge``, the paper's sampled sufficiency judgement) and override
retries and passes (``r3p5``), the family picks the graph (``@typed``, the default, ``@openie``
or ``@openie-bare``).
A variant is resolved in its canonical order (switches in :data:`SWITCHES` order, then the
budget): ``arcrag:r3p5+strict`` is ``arcrag:strict+r3p5``. Direct-Cypher's own budget is one
attempt and one pass; it writes no scan template, has no fallback passages and judges nothing,
so ``strict`` and ``judge`` are refused there rather than naming its default configuration
twice.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace

from ace_lab.arc.answer import PAPER_JUDGE_TEMPERATURE
from ace_lab.arc.budget import Budget
from ace_lab.arc.method import ArcConfig, ArcRAG
from ace_lab.arc.names import ARC_HEADS, ARC_METHODS, FAMILIES, SWITCHES
from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.methods.names import MethodName, parse
from ace_lab.methods.spec import MethodSpec
from ace_lab.retrieval import RetrievalGraph

#: ArcRAG's report package (tables, figures, stepper views, liveness, claims).
REPORT = "ace_lab.arc.report"
_BUDGET = re.compile(r"r\d+p\d+")
_VARIANT = "'+'-joined tokens: " + ", ".join(SWITCHES) + ", r<retries>p<passes>"
#: Variant switch token → the ``ArcConfig`` fields it sets. A token whose fields ``ArcConfig``
#: lacks is refused with one line, so ``grammar`` works as soon as ``ArcConfig.grammar`` exists.
SWITCH_FIELDS: dict[str, dict[str, bool | float]] = {
    "strict": {"template": False, "fallback": False},
    "grammar": {"grammar": True},  # schema-constrained decoding of the Cypher (issue 37)
    "patterns": {"patterns": True},  # ... along the graph's signatures only (needs grammar)
    "judge": {"judge_temperature": PAPER_JUDGE_TEMPERATURE},  # the paper's sampled judgement
}


def is_arc(head: str) -> bool:
    """Whether ArcRAG owns the name head ``head``."""
    return head in ARC_HEADS


def variant_tokens(name: str, variant: str) -> tuple[tuple[str, ...], str]:
    """The switch tokens (in :data:`SWITCHES` order) and the budget label ("" for none) of
    ``variant`` (``strict+r3p5``); a ``KeyError`` for an unknown or repeated token."""
    tokens = variant.split("+") if variant else []
    budgets = [t for t in tokens if _BUDGET.fullmatch(t)]
    unknown = [t for t in tokens if t not in SWITCHES and t not in budgets]
    if unknown or len(budgets) > 1 or len(set(tokens)) < len(tokens):
        raise KeyError(f"{name!r}: an ArcRAG variant is {_VARIANT}, each at most once")
    return tuple(s for s in SWITCHES if s in tokens), "".join(budgets)


def arc_config(name: str, components: str, switches: tuple[str, ...]) -> ArcConfig:
    """The ``ArcConfig`` of ``components`` with the variant's ``switches`` on."""
    if components == "direct" and "strict" in switches:
        raise KeyError(f"{name!r}: Direct-Cypher has no scan template or fallback to turn off")
    if components == "direct" and "judge" in switches:
        raise KeyError(f"{name!r}: Direct-Cypher makes one pass and no sufficiency judgement")
    if "patterns" in switches and "grammar" not in switches:
        raise KeyError(f"{name!r}: patterns narrows the grammar; write grammar+patterns")
    known = {f.name for f in fields(ArcConfig)}
    settings: dict[str, bool | float] = {}
    for switch in switches:
        missing = set(SWITCH_FIELDS[switch]) - known
        if missing:
            raise KeyError(f"{name!r}: {switch!r} is not available (no ArcConfig.{min(missing)})")
        settings |= SWITCH_FIELDS[switch]
    return ArcConfig(components=components, **settings)


def resolve(parts: MethodName, context_tokens: int | None = None) -> MethodSpec:
    """The spec of an ArcRAG name: its stages, switches, budget and graph family (Cypher
    store), named in its canonical order; ``context_tokens`` (a ``b<N>`` token) caps the final
    context (:attr:`ArcConfig.context_tokens`)."""
    if parts.policy:
        raise KeyError(f"{str(parts)!r}: an ArcRAG name is <head>[:<variant>][@family]")
    switches, label = variant_tokens(str(parts), parts.variant)
    components, about = ARC_HEADS[parts.head]
    family = parts.family or "typed"  # the graph ArcRAG was designed for
    variant = "+".join((*switches, label) if label else switches)
    name = str(replace(parts, variant=variant))
    if family not in FAMILIES:
        known = ", ".join(f"@{f}" for f in FAMILIES)
        raise KeyError(f"unknown graph family {family!r} in {name!r}; use {known}")
    base = replace(Budget(), retries=1, passes=1) if components == "direct" else Budget()
    budget = Budget.parse(label, base) if label else base
    config = arc_config(name, components, switches)
    if context_tokens is not None:
        config = replace(config, context_tokens=context_tokens)
        capped = "+".join(t for t in (variant, f"b{context_tokens}") if t)
        name = str(replace(parts, variant=capped))

    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        return ArcRAG(graph, llm, config, budget, name=name)

    strict = ", strict: no template, no fallback" if "strict" in switches else ""
    about = f"{about} ({family} graph, budget {budget.label}{strict})"

    def rebudget(_: str, tokens: int) -> MethodSpec:
        return resolve(parts, tokens)

    spec = MethodSpec(name, family, factory, True, about, (config, budget), REPORT, rebudget)
    return spec if context_tokens is None else replace(spec, rebudget=None)


#: The registered ArcRAG methods: every head on both graph families.
ARC_SPECS: tuple[MethodSpec, ...] = tuple(resolve(parse(name)) for name in ARC_METHODS)
