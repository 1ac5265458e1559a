"""ACE context policies ρ = (gap diagnosis, retrieval branches, adaptation profile).

``ContextPolicy`` is the paper's ρ (Eq. 4) plus the semantic-pruning switch of Table 1. Full-ACE
uses ``full_policy(task)`` for every query; Adaptive-ACE routes each query to a topology and uses
``topology_policy(topology, task)`` (Tables 1 and 12):

=========  ==========  ===============  ==============
label      topology    gap diagnosis    branches        pruning
=========  ==========  ===============  ==============
POINT      Node        on               Depth           on
CONTRAST   Edge        on               Breadth         on
CHAIN      Chain       on               Depth+Breadth   off
OVERVIEW   Subgraph    off              Depth+Breadth   on
=========  ==========  ===============  ==============
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from ace_lab.bounded import Bounded, ConfigError, bounded

Branch = Literal["depth", "breadth"]
Profile = Literal["qa", "qfs"]
Topology = Literal["POINT", "CONTRAST", "CHAIN", "OVERVIEW"]

BRANCHES: tuple[Branch, ...] = ("depth", "breadth")
PROFILES: tuple[Profile, ...] = ("qa", "qfs")
TOPOLOGIES: tuple[Topology, ...] = ("POINT", "CONTRAST", "CHAIN", "OVERVIEW")
#: Router labels as the paper names the topologies.
TOPOLOGY_NAMES = {"POINT": "Node", "CONTRAST": "Edge", "CHAIN": "Chain", "OVERVIEW": "Subgraph"}
#: The label used when the router's output cannot be parsed (paper, Appendix E.1).
FALLBACK_TOPOLOGY: Topology = "OVERVIEW"


@dataclass(frozen=True)
class ContextPolicy(Bounded):
    """Which ACE operations run for one query. Invalid combinations raise at construction."""

    gap: bool = bounded(True, help="diagnose the gap in C_base before rewriting the queries")
    branches: tuple[Branch, ...] = bounded(
        BRANCHES,
        subset_of=BRANCHES,
        nonempty=True,
        help="retrieval branches: Depth (local detail) and/or Breadth (global context)",
    )
    pruning: bool = bounded(True, help="drop evidence dissimilar to every query (adaptation)")
    profile: Profile = bounded("qa", choices=PROFILES, help="adaptation profile of the task")

    def __post_init__(self) -> None:
        unknown = set(self.branches) - set(BRANCHES)
        if unknown:
            raise ConfigError(f"unknown branches {sorted(unknown)}; use a subset of {BRANCHES}")
        if not self.branches:
            raise ConfigError("a context policy needs at least one retrieval branch")
        branches = tuple(b for b in BRANCHES if b in self.branches)  # canonical order
        object.__setattr__(self, "branches", branches)
        super().__post_init__()

    @property
    def label(self) -> str:
        """Compact name, e.g. ``gap+depth+breadth+prune``."""
        parts = (["gap"] if self.gap else []) + list(self.branches)
        return "+".join(parts + (["prune"] if self.pruning else []))

    def without(self, *parts: str) -> ContextPolicy:
        """This policy with operations removed: ``"gap"``, ``"pruning"``, or a branch name."""
        branches = tuple(b for b in self.branches if b not in parts)
        return replace(
            self,
            gap=self.gap and "gap" not in parts,
            pruning=self.pruning and "pruning" not in parts,
            branches=branches,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "gap": self.gap,
            "branches": list(self.branches),
            "pruning": self.pruning,
            "profile": self.profile,
        }


def profile_for(task: str) -> Profile:
    """The adaptation profile of an answer task: ``qfs`` for query-focused summaries, else
    ``qa`` (open answers rank evidence like QA: specific facts before reports)."""
    return "qfs" if task == "qfs" else "qa"


def full_policy(task: Profile = "qa") -> ContextPolicy:
    """Full-ACE: gap diagnosis, both branches and the task's adaptation profile."""
    return ContextPolicy(gap=True, branches=BRANCHES, pruning=True, profile=task)


_TOPOLOGY_TABLE: dict[str, tuple[bool, tuple[Branch, ...], bool]] = {
    "POINT": (True, ("depth",), True),
    "CONTRAST": (True, ("breadth",), True),
    "CHAIN": (True, BRANCHES, False),
    "OVERVIEW": (False, BRANCHES, True),
}


def topology_policy(topology: str, task: Profile = "qa") -> ContextPolicy:
    """Adaptive-ACE's policy for a router label (paper Table 12)."""
    if topology not in _TOPOLOGY_TABLE:
        raise ValueError(f"unknown topology {topology!r}; use one of {TOPOLOGIES}")
    gap, branches, pruning = _TOPOLOGY_TABLE[topology]
    return ContextPolicy(gap=gap, branches=branches, pruning=pruning, profile=task)


def policy_table(task: Profile = "qa") -> list[dict[str, object]]:
    """Full-ACE's policy and each topology's (paper Tables 1 and 12), one row each."""
    rows: list[dict[str, object]] = [{"policy": "Full-ACE", **full_policy(task).to_dict()}]
    for topology in TOPOLOGIES:
        name = f"{topology} ({TOPOLOGY_NAMES[topology]})"
        rows.append({"policy": name, **topology_policy(topology, task).to_dict()})
    return rows


def fixed_policies(task: Profile = "qa") -> dict[str, ContextPolicy]:
    """Every distinct policy (gap × non-empty branch set × pruning), keyed by ``label``: the
    candidates of the oracle-best-fixed control."""
    out = {}
    for gap in (True, False):
        for branches in (("depth",), ("breadth",), BRANCHES):
            for pruning in (True, False):
                policy = ContextPolicy(gap=gap, branches=branches, pruning=pruning, profile=task)
                out[policy.label] = policy
    return out


def parse_policy(label: str, task: Profile = "qa") -> ContextPolicy:
    """The policy named by ``label`` (``ContextPolicy.label`` syntax, e.g. ``gap+depth``)."""
    parts = set(label.split("+"))
    unknown = parts - {"gap", "prune", *BRANCHES}
    if unknown:
        raise ValueError(f"cannot parse policy {label!r}: unknown parts {sorted(unknown)}")
    branches = tuple(b for b in BRANCHES if b in parts)
    return ContextPolicy(
        gap="gap" in parts, branches=branches, pruning="prune" in parts, profile=task
    )
