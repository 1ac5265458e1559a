"""The what-if explorer's controls as registry names (``head[:variant][@family][>policy]``).

Every setting a person can move in the explorer is one method name, so each answer is made by
:func:`ace_lab.registry.make_method` and goes through the same harness as ``ace-lab run``:

- MOSAIC: the analyzer's per-query policy (the paper's, whose reply is the controls, ``mosaic``,
  or six signals mapped to the controls, ``mosaic:signals``), one fixed width
  (``mosaic-fixed:narrow``) or a fixed evidence budget × depth cap
  (``mosaic-budget-matched:12x3``);
- ArcRAG: the head (which stages run), the switches ``strict`` (no scan template, no
  fallback passages) and ``grammar`` (schema-constrained Cypher), the budget
  ``r<retries>p<passes>`` and the graph family (``arcrag:strict+grammar+r2p3@openie``);
- ACE: the topology whose policy runs (the router's, ``ace-adaptive``; every policy,
  ``ace-full``; or one topology's fixed policy, ``ace-fixed:gap+depth+prune``), the
  adaptation's token budget (``:b1500``; the unnamed default is 2,400) and the backbone
  (``@graphrag``).
"""

from __future__ import annotations

from dataclasses import fields

from ace_lab.ace.adapt import AdaptConfig
from ace_lab.ace.policy import TOPOLOGIES, topology_policy
from ace_lab.arc.names import ARC_HEADS
from ace_lab.arc.names import FAMILIES as ARC_FAMILIES
from ace_lab.bounded import field_bounds
from ace_lab.mosaic.policy import BUDGET_MATCHED_DEFAULT, FIXED_POLICIES, ExplorationPolicy
from ace_lab.registry import MethodName, canonical_name
from ace_lab.registry.ace import at_budget, split_variant

#: MOSAIC's policy choices: the analyzer, the fixed widths, or budget × depth.
MOSAIC_WIDTHS = ("analyzer", "signals", *FIXED_POLICIES, "budget")
#: ArcRAG's stage choices (name heads) and graph families.
ARC_HEAD_CHOICES = tuple(ARC_HEADS)
ARC_FAMILY_CHOICES = tuple(ARC_FAMILIES)
#: ACE's topology choices: the router's per query, Full-ACE, or one topology's policy.
ACE_TOPOLOGIES = ("adaptive", "full", *TOPOLOGIES)
ACE_BACKBONES = ("hirag", "graphrag")
#: ACE's budget slider (tokens): its unnamed default (2,400), and the range and step shown.
ACE_DEFAULT_BUDGET = AdaptConfig().budget_tokens
ACE_BUDGET_RANGE = (500, 4000, 100)


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
    if width == "budget":
        return canonical_name(f"mosaic>{budget}x{depth}")
    return canonical_name(f"mosaic>{width}")


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
    return canonical_name(f"{head}:{'+'.join([*tokens, f'r{retries}p{passes}'])}{suffix}")


def ace_name(
    topology: str = "adaptive", backbone: str = "hirag", budget: int = ACE_DEFAULT_BUDGET
) -> str:
    """``ace-adaptive``, ``ace-full`` or ``ace-fixed:<policy of topology>``, on ``backbone``,
    with ``:b<budget>`` unless ``budget`` is the default (whose name carries no token)."""
    if topology not in ACE_TOPOLOGIES:
        raise ValueError(f"unknown ACE topology {topology!r}; use one of {ACE_TOPOLOGIES}")
    family = "" if backbone == "hirag" else backbone
    if topology in TOPOLOGIES:
        name = MethodName("ace", family=family, policy=topology_policy(topology).label)
    else:
        name = MethodName(f"ace-{topology}", family=family)
    named = canonical_name(str(name))
    return named if budget == ACE_DEFAULT_BUDGET else canonical_name(at_budget(named, budget))


def ace_budget(variant: str) -> int:
    """The budget control of an ACE name's variant (``gap+depth+b1500`` → 1500)."""
    return split_variant(variant)[1] or ACE_DEFAULT_BUDGET


def ace_topology(head: str, variant: str = "") -> str:
    """The topology control of an ACE name's head and variant: ``adaptive``, ``full`` or the
    topology whose policy ``ace-fixed:<variant>`` runs (``adaptive`` for any other name)."""
    if head in ("ace-adaptive", "ace-full"):
        return head.removeprefix("ace-")
    labels = {topology_policy(t).label: t for t in TOPOLOGIES}
    label = split_variant(variant)[0]
    return labels.get(label, "adaptive") if head == "ace-fixed" else "adaptive"
