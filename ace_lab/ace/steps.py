"""Step payloads specific to ACE (plain data; views and reports dispatch on these types).

ACE's steps record, in order: ``retrieve:base`` a generic ``Retrieval``; ``route`` (Adaptive-ACE
only) a :class:`RouterDecision`; ``policy`` a :class:`PolicyDecision`; ``plan`` a
:class:`GapPlan`; ``retrieve:depth`` / ``retrieve:breadth`` a :class:`BranchRetrieval`;
``merge`` a :class:`Consolidation`; ``adapt`` a generic ``Selection``; ``generate`` a generic
``Generation``. :class:`AceDetails` is what an answer reports beyond its text: the record
columns ``policy``, ``topology``, ``router`` and ``plan``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ace_lab.steps import AnswerDetails, StepPayload


@dataclass(frozen=True)
class RouterDecision(StepPayload):
    """Adaptive-ACE's router: the topology label, the label the model wrote (None after a
    fallback), the attempts it took, whether it fell back, and the prompt it used."""

    topology: str
    attempts: int
    fallback: bool
    errors: tuple[str, ...] = ()
    raw_label: str | None = None
    prompt: str = "paper"

    def to_meta(self) -> dict[str, Any]:
        """What a record keeps of the router: its ``router`` column."""
        return {
            "prompt": self.prompt,
            "label": self.topology,
            "raw_label": self.raw_label,
            "attempts": self.attempts,
            "fallback": self.fallback,
            "errors": list(self.errors),
        }

    def line(self) -> str:
        how = "fell back to" if self.fallback else f"{self.raw_label!r} read as"
        return f"router ({self.prompt} prompt, {self.attempts} attempt(s)) {how} {self.topology}"


@dataclass(frozen=True)
class PolicyDecision(StepPayload):
    """The context policy ρ chosen for one query, how (``mode``: full, adaptive or fixed) and,
    for Adaptive-ACE, the router topology it came from."""

    gap: bool
    branches: tuple[str, ...]
    pruning: bool
    profile: str
    label: str
    mode: str
    topology: str | None = None

    def policy(self) -> dict[str, Any]:
        """The record's ``policy`` column: the policy's fields and its label."""
        return {
            "gap": self.gap,
            "branches": list(self.branches),
            "pruning": self.pruning,
            "profile": self.profile,
            "label": self.label,
        }

    def line(self) -> str:
        routed = f" from router label {self.topology}" if self.topology else ""
        return f"policy {self.label} ({self.mode}{routed})"


@dataclass(frozen=True)
class GapPlan(StepPayload):
    """The planner's gap analysis and one query per branch; ``fallback`` when its output could
    not be parsed (then one Depth retrieval with the original query)."""

    analysis: str
    queries: dict[str, str]
    fallback: bool = False

    def summary(self) -> dict[str, Any]:
        """The record's ``plan`` column."""
        return {"analysis": self.analysis, "queries": dict(self.queries), "fallback": self.fallback}

    def line(self) -> str:
        if self.fallback:
            return "planner fell back: one depth retrieval with the original query"
        shown = "; ".join(f"{b}: {q}" for b, q in self.queries.items())
        return f"plan ({self.analysis or 'no gap analysis'}) → {shown}"


@dataclass(frozen=True)
class BranchRetrieval(StepPayload):
    """One branch of Parallel Differential Retrieval: its query, mode and increment ΔC_b."""

    branch: str
    query: str
    mode: str
    evidence_ids: tuple[str, ...] = ()

    def line(self) -> str:
        return f"{self.branch}: {len(self.evidence_ids)} items ({self.mode}) for {self.query!r}"


@dataclass(frozen=True)
class Consolidation(StepPayload):
    """C* = Merge(C_base, ΔC): how many items, and how many were found more than once."""

    n: int
    duplicates: int = 0

    def line(self) -> str:
        return f"C*: {self.n} items, {self.duplicates} found more than once"


@dataclass(frozen=True)
class AceDetails(AnswerDetails):
    """What ACE reports about one answer: the backbone, the policy, the router's decision
    (Adaptive-ACE only) and the plan."""

    backbone: str
    policy: PolicyDecision
    plan: GapPlan
    router: RouterDecision | None = None

    def columns(self) -> dict[str, Any]:
        """ACE's record columns, exactly as records have always held them."""
        return {
            "policy": self.policy.policy(),
            "topology": self.router.topology if self.router is not None else None,
            "router": self.router.to_meta() if self.router is not None else None,
            "plan": self.plan.summary(),
        }

    def line(self) -> str:
        return f"ACE over {self.backbone}: {self.policy.line()}"
