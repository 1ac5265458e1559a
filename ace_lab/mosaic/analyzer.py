"""MOSAIC's analyzer: one JSON-schema LLM call from the question alone → a validated policy.

The model answers six questions about the evidence the question needs (paper §4: signals from
recurring retrieval failures, not a closed taxonomy of question types):

=================  ==========================================  ===================================
signal             what it detects                             controls it sets
=================  ==========================================  ===================================
cardinality        one answer vs a list of items               cardinality, budget +3, beam +4
targets/compare    several targets to cover in balance         per_target, targets, seeds +2/target,
                                                               floor 2/target, connectors, beam +4,
                                                               budget +2
mediated           relation through an unnamed connector       connectors, min_depth 2, D_q +1,
                                                               deep stopping
depth              hops from the named entity to the answer    D_q; ≤ 1 shallow, ≥ 4 deep stopping
anchoring          a specific named anchor vs a vague topic    anchored (adaptive path weights)
breadth            summary or creative text, broad evidence    seeds +2, budget +3, beam +4, deep
                                                               stopping, source window 2
=================  ==========================================  ===================================

The mapping (:func:`controls_from_signals`) is ours, written from the paper's description of
which controls each failure calls for; its raw numbers are then validated by
:meth:`ExplorationPolicy.clamp`, so every clamp and default is recorded. Output that does not
validate against :class:`AnalyzerOutput` (after ``LLM.json``'s retries) yields the default
policy, marked ``fallback`` in the trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel, ValidationError

from ace_lab.bounded import Adjustment
from ace_lab.llm import LLM
from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.steps import ExplorationChoice
from ace_lab.prompts import load_prompt

ANALYZER_PROMPT = "mosaic_analyzer"
ANALYZER_MAX_TOKENS = 160


class AnalyzerOutput(BaseModel):
    """The six signals as the model reports them; every key may be missing (defaults below).

    Types are kept loose where a small model writes sensible variants (``depth`` as ``"3"``);
    values out of range are left to the policy's clamping, which records them."""

    cardinality: str = "single"
    targets: list[str] = []
    comparison: bool = False
    mediated: bool = False
    depth: int = 2
    anchoring: str = "specific"
    breadth: str = "narrow"


@dataclass(frozen=True)
class PolicyDecision:
    """What the analyzer decided for one question, and how it got there."""

    policy: ExplorationPolicy
    signals: dict[str, Any]
    raw: dict[str, Any]  # the controls before validation
    adjustments: tuple[Adjustment, ...] = ()
    fallback: bool = False
    attempts: int = 0
    errors: tuple[str, ...] = field(default=())

    def payload(self, source: str = "analyzer") -> ExplorationChoice:
        """This decision as the ``policy`` step's payload (``source``: analyzer or fixed)."""
        return ExplorationChoice(
            policy=self.policy.to_dict(),
            label=self.policy.label,
            source=source,
            signals=dict(self.signals),
            raw=dict(self.raw),
            adjustments=tuple(str(a) for a in self.adjustments),
            fallback=self.fallback,
            attempts=self.attempts,
            errors=tuple(self.errors),
        )


def controls_from_signals(out: AnalyzerOutput) -> dict[str, Any]:
    """The raw (unvalidated) controls the six signals call for (mapping ours, see module doc)."""
    targets = list(out.targets)
    many = out.comparison or len(targets) >= 2
    listy = str(out.cardinality).strip().lower() == "list"
    broad = str(out.breadth).strip().lower() == "broad"
    depth = out.depth + (1 if out.mediated and out.depth < 3 else 0)
    stop = (
        "deep" if (out.mediated or broad or depth >= 4) else ("shallow" if depth <= 1 else "medium")
    )
    return {
        "seed_count": 6 + (2 * max(len(targets) - 1, 1) if many else 0) + (2 if broad else 0),
        "per_target": many and bool(targets),
        "targets": targets,
        "max_depth": depth,
        "min_depth": 2 if out.mediated else 1,
        "beam_width": 8 + (4 if listy else 0) + (4 if broad else 0) + (4 if many else 0),
        "connectors": bool(out.mediated or (many and len(targets) >= 2)),
        "stop_threshold": stop,
        "patience": 1,
        "evidence_budget": 10 + (3 if listy else 0) + (3 if broad else 0) + (2 if many else 0),
        "preservation_floor": max(4, 2 * len(targets)),
        "cardinality": "list" if listy else "single",
        "anchored": str(out.anchoring).strip().lower() == "specific",
        "source_window": 2 if broad else 1,
    }


def decide(raw: Any) -> PolicyDecision:
    """The validated policy for any parsed analyzer output (never raises).

    ``raw`` is what the model's JSON parsed to; anything that does not validate as
    :class:`AnalyzerOutput` gives the default policy with ``fallback=True``."""
    try:
        out = AnalyzerOutput.model_validate(raw)
    except (ValidationError, TypeError, ValueError) as exc:
        return default_decision((f"invalid analyzer output: {str(exc)[:200]}",))
    return from_output(out)


def from_output(out: AnalyzerOutput, *, attempts: int = 1) -> PolicyDecision:
    controls = controls_from_signals(out)
    policy, changes = ExplorationPolicy.clamp(controls)
    return PolicyDecision(policy, out.model_dump(), controls, tuple(changes), False, attempts)


def default_decision(errors: tuple[str, ...] = (), attempts: int = 0) -> PolicyDecision:
    """The conservative default policy, used when the analyzer's output is unusable."""
    return PolicyDecision(ExplorationPolicy(), {}, {}, (), True, attempts, errors)


def analyze(llm: LLM, query: str, attempts: int = 2) -> PolicyDecision:
    """One analyzer call (retried up to ``attempts`` times on invalid JSON) → a decision."""
    result = llm.json(
        load_prompt(ANALYZER_PROMPT).messages(query=query),
        AnalyzerOutput,
        tag="mosaic.analyzer",
        default=AnalyzerOutput,
        attempts=attempts,
        temperature=0.0,
        max_tokens=ANALYZER_MAX_TOKENS,
    )
    if result.fallback:
        return default_decision(result.errors, result.attempts)
    return replace(from_output(result.value, attempts=result.attempts), errors=result.errors)
