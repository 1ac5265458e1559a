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

The pruning switch of the paper's Table 1 does two things in the QA profile: it drops
report-level evidence (community reports) and it prunes evidence dissimilar to the queries.
``pruning`` is the semantic pruning; ``drop_reports`` is the report dropping, and by default
(None) it follows ``pruning`` — the paper's coupled switch, every existing policy's behaviour.
Set explicitly to the other value it makes the two independent; the labels then carry
``keepreports`` (pruning on, reports kept) or ``dropreports`` (pruning off, reports dropped).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Literal

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
#: Label tokens of a ``drop_reports`` set against ``pruning`` (one spelling per policy).
KEEP_REPORTS, DROP_REPORTS = "keepreports", "dropreports"
#: What :meth:`ContextPolicy.without` removes: a component of ρ, or one half of pruning.
PARTS = ("gap", *BRANCHES, "pruning", "semantic-pruning", "report-drop")


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
    pruning: bool = bounded(
        True,
        help="semantic pruning: drop evidence dissimilar to every query (adaptation); "
        "with drop_reports unset it also decides report dropping (the paper's one switch)",
    )
    profile: Profile = bounded("qa", choices=PROFILES, help="adaptation profile of the task")
    drop_reports: bool | None = bounded(
        None,
        help="QA profile: drop report-level evidence (community reports); "
        "None: as `pruning` (today's coupled switch)",
    )

    #: Added after records were written: left out of the configuration hash while None, so
    #: every existing name keeps its hash (ace_lab.eval.studies.identity).
    HASH_OMITS_AT_DEFAULT: ClassVar[tuple[str, ...]] = ("drop_reports",)

    def __post_init__(self) -> None:
        unknown = set(self.branches) - set(BRANCHES)
        if unknown:
            raise ConfigError(f"unknown branches {sorted(unknown)}; use a subset of {BRANCHES}")
        if not self.branches:
            raise ConfigError("a context policy needs at least one retrieval branch")
        branches = tuple(b for b in BRANCHES if b in self.branches)  # canonical order
        object.__setattr__(self, "branches", branches)
        if self.drop_reports == self.pruning:  # the coupled default, spelt one way
            object.__setattr__(self, "drop_reports", None)
        super().__post_init__()

    @property
    def reports_dropped(self) -> bool:
        """Whether the QA profile drops report-level evidence (``drop_reports``, else
        ``pruning``)."""
        return self.pruning if self.drop_reports is None else self.drop_reports

    @property
    def label(self) -> str:
        """Compact name, e.g. ``gap+depth+breadth+prune``; a report switch set against
        pruning adds ``keepreports`` or ``dropreports``."""
        parts = (["gap"] if self.gap else []) + list(self.branches)
        parts += ["prune"] if self.pruning else []
        if self.drop_reports is not None:
            parts.append(DROP_REPORTS if self.drop_reports else KEEP_REPORTS)
        return "+".join(parts)

    def without(self, *parts: str) -> ContextPolicy:
        """This policy with operations removed: ``"gap"``, a branch name, ``"pruning"`` (both
        halves: semantic pruning and report dropping, the paper's switch), or one half,
        ``"semantic-pruning"`` or ``"report-drop"``."""
        unknown = set(parts) - set(PARTS)
        if unknown:
            raise ValueError(f"cannot remove {sorted(unknown)} from a policy; use {PARTS}")
        branches = tuple(b for b in self.branches if b not in parts)
        drop = self.reports_dropped and not {"pruning", "report-drop"} & set(parts)
        return replace(
            self,
            gap=self.gap and "gap" not in parts,
            pruning=self.pruning and not {"pruning", "semantic-pruning"} & set(parts),
            branches=branches,
            drop_reports=drop,
        )

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "gap": self.gap,
            "branches": list(self.branches),
            "pruning": self.pruning,
            "profile": self.profile,
        }
        if self.drop_reports is not None:  # rows of coupled policies stay as they were
            out["drop_reports"] = self.drop_reports
        return out


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
    """The policy named by ``label`` (``ContextPolicy.label`` syntax, e.g. ``gap+depth``,
    ``gap+depth+breadth+prune+keepreports``); a report token that repeats what ``prune``
    already implies is refused, so each policy has one label."""
    parts = set(label.split("+"))
    unknown = parts - {"gap", "prune", KEEP_REPORTS, DROP_REPORTS, *BRANCHES}
    if unknown:
        raise ValueError(f"cannot parse policy {label!r}: unknown parts {sorted(unknown)}")
    pruning = "prune" in parts
    drop = {KEEP_REPORTS: False, DROP_REPORTS: True}
    reports = [drop[p] for p in (KEEP_REPORTS, DROP_REPORTS) if p in parts]
    if len(reports) > 1 or (reports and reports[0] == pruning):
        why = "keepreports needs prune, dropreports needs no prune, not both"
        raise ValueError(f"cannot parse policy {label!r}: {why}")
    branches = tuple(b for b in BRANCHES if b in parts)
    return ContextPolicy(
        gap="gap" in parts,
        branches=branches,
        pruning=pruning,
        profile=task,
        drop_reports=reports[0] if reports else None,
    )
