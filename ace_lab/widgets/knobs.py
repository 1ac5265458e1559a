"""The what-if explorer's controls as registry names (``head[:variant][@family][>policy]``).

Every setting a person can move in the explorer is one method name, so each answer is made by
:func:`ace_lab.registry.make_method` and goes through the same harness as ``ace-lab run``:

- MOSAIC: the analyzer's per-query policy (``mosaic``, or the paper's analyzer that writes the
  controls itself, ``mosaic:controls``), one fixed width
  (``mosaic-fixed:narrow``) or a fixed evidence budget × depth cap
  (``mosaic-budget-matched:12x3``);
- ArcRAG: the head (which stages run), the switches ``strict`` (no scan template, no
  fallback passages) and ``grammar`` (schema-constrained Cypher), the budget
  ``r<retries>p<passes>`` and the graph family (``arcrag:strict+grammar+r2p3@openie``);
- ACE: the topology whose policy runs (the router's, ``ace-adaptive``; every policy,
  ``ace-full``; or one topology's fixed policy, ``ace-fixed:gap+depth+prune``) and the
  backbone (``@graphrag``). ACE's token budget is not part of a name, so it is not a control.
"""

from __future__ import annotations

from dataclasses import fields

from ace_lab.ace.policy import TOPOLOGIES, topology_policy
from ace_lab.arc.names import ARC_HEADS
from ace_lab.arc.names import FAMILIES as ARC_FAMILIES
from ace_lab.bounded import field_bounds
from ace_lab.mosaic.policy import BUDGET_MATCHED_DEFAULT, FIXED_POLICIES, ExplorationPolicy
from ace_lab.registry import MethodName, canonical_name

#: MOSAIC's policy choices: the analyzer, the fixed widths, or budget × depth.
MOSAIC_WIDTHS = ("analyzer", "controls", *FIXED_POLICIES, "budget")
#: ArcRAG's stage choices (name heads) and graph families.
ARC_HEAD_CHOICES = tuple(ARC_HEADS)
ARC_FAMILY_CHOICES = tuple(ARC_FAMILIES)
#: ACE's topology choices: the router's per query, Full-ACE, or one topology's policy.
ACE_TOPOLOGIES = ("adaptive", "full", *TOPOLOGIES)
ACE_BACKBONES = ("hirag", "graphrag")


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
    """``mosaic``, ``mosaic-fixed:<width>`` or ``mosaic-budget-matched:<budget>x<depth>``."""
    if width not in MOSAIC_WIDTHS:
        raise ValueError(f"unknown MOSAIC width {width!r}; use one of {MOSAIC_WIDTHS}")
    if width == "analyzer":
        return "mosaic"
    if width == "controls":
        return "mosaic:controls"
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


def ace_name(topology: str = "adaptive", backbone: str = "hirag") -> str:
    """``ace-adaptive``, ``ace-full`` or ``ace-fixed:<policy of topology>``, on ``backbone``."""
    if topology not in ACE_TOPOLOGIES:
        raise ValueError(f"unknown ACE topology {topology!r}; use one of {ACE_TOPOLOGIES}")
    family = "" if backbone == "hirag" else backbone
    if topology in TOPOLOGIES:
        name = MethodName("ace", family=family, policy=topology_policy(topology).label)
    else:
        name = MethodName(f"ace-{topology}", family=family)
    return canonical_name(str(name))


def ace_topology(head: str, variant: str = "") -> str:
    """The topology control of an ACE name's head and variant: ``adaptive``, ``full`` or the
    topology whose policy ``ace-fixed:<variant>`` runs (``adaptive`` for any other name)."""
    if head in ("ace-adaptive", "ace-full"):
        return head.removeprefix("ace-")
    labels = {topology_policy(t).label: t for t in TOPOLOGIES}
    return labels.get(variant, "adaptive") if head == "ace-fixed" else "adaptive"
