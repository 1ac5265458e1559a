"""ACE's what-if controls: the topology whose policy runs (the router's, ``ace-adaptive``;
every policy, ``ace-full``; or one topology's fixed policy, ``ace-fixed:gap+depth+prune``), the
adaptation's token budget (``:b<N>``) and the backbone (``@graphrag``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ace_lab.ace.adapt import AdaptConfig
from ace_lab.ace.policy import TOPOLOGIES, topology_policy
from ace_lab.ace.specs import at_budget, resolve, split_variant
from ace_lab.methods.names import MethodName, parse
from ace_lab.methods.plugin import Knob, WhatIfControls

#: ACE's topology choices: the router's per query, Full-ACE, or one topology's policy.
ACE_TOPOLOGIES = ("adaptive", "full", *TOPOLOGIES)
ACE_BACKBONES = ("hirag", "graphrag")
#: ACE's budget slider (tokens): its unnamed default (2,400), and the range and step shown.
ACE_DEFAULT_BUDGET = AdaptConfig().budget_tokens
ACE_BUDGET_RANGE = (500, 4000, 100)


def _canonical(name: str) -> str:
    return resolve(parse(name)).name


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
    named = _canonical(str(name))
    return named if budget == ACE_DEFAULT_BUDGET else _canonical(at_budget(named, budget))


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


def _values(parts: MethodName) -> dict[str, Any]:
    """The controls of an ACE name."""
    return {
        "backbone": parts.family or "hirag",
        "topology": ace_topology(parts.head, parts.variant),
        "budget": ace_budget(parts.variant),
    }


def _name(values: Mapping[str, Any]) -> str:
    return ace_name(values["topology"], values["backbone"], values["budget"])


_LOW, _HIGH, _STEP = ACE_BUDGET_RANGE
CONTROLS = WhatIfControls(
    knobs=(
        Knob("topology", "toggles", "topology", "adaptive", options=ACE_TOPOLOGIES),
        Knob("budget", "slider", "tokens", ACE_DEFAULT_BUDGET, low=_LOW, high=_HIGH, step=_STEP),
        Knob("backbone", "toggles", "backbone", "hirag", options=ACE_BACKBONES),
    ),
    name_of=_name,
    values_of=_values,
)
