"""Step payloads specific to MOSAIC (plain data; views and reports dispatch on these types).

A MOSAIC trace is ``policy`` (:class:`ExplorationChoice`), ``seed`` (:class:`SeedSelection`),
one ``traverse:<d>`` per depth (:class:`TraversalDepth`), ``stop`` (:class:`ExplorationStop`),
``select`` (:class:`EvidenceSelection`) and ``generate`` (the generic ``Generation``).
:class:`MosaicDetails` is what an answer reports beyond its trace: the record columns
``policy`` and ``stats``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ace_lab.steps import AnswerDetails, Selection, StepPayload, StopDecision


def _frozen(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with lists as tuples, as a payload read back from a record has them."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}


@dataclass(frozen=True)
class ExplorationChoice(StepPayload):
    """The exploration policy one question got: from the analyzer (its signals, the raw
    controls they called for, what validation changed) or fixed by the method's name."""

    policy: dict[str, Any]  # the validated controls (``ExplorationPolicy.to_dict``)
    label: str
    source: str = "analyzer"  # "analyzer" | "fixed"
    signals: dict[str, Any] = field(default_factory=dict)  # the analyzer's validated JSON
    raw: dict[str, Any] = field(default_factory=dict)  # the controls before validation
    adjustments: tuple[str, ...] = ()  # "field: given → used (why)"
    fallback: bool = False  # unusable analyzer output: the default policy
    attempts: int = 0
    errors: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("policy", "signals", "raw"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    def line(self) -> str:
        extra = " (default: analyzer output unusable)" if self.fallback else ""
        return f"policy {self.label} [{self.source}]{extra}, {len(self.adjustments)} adjusted"


@dataclass(frozen=True)
class SeedPick(StepPayload):
    """One seed node and the scores that chose it (nested in :class:`SeedSelection`)."""

    node: str
    score: float
    entity: float = 0.0
    relation: float = 0.0
    lexical: bool = False
    view: str = "question"  # the view (question or a target) whose turn picked it
    views: tuple[str, ...] = ()

    def line(self) -> str:
        return f"seed {self.node} ({self.view}, {self.score:.3f})"


@dataclass(frozen=True)
class SeedSelection(StepPayload):
    """The seeds, every view's candidates (node ids, best first) and the candidates dropped."""

    seeds: tuple[SeedPick, ...] = ()
    candidates: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dropped: tuple[str, ...] = ()

    def line(self) -> str:
        return f"{len(self.seeds)} seeds from {len(self.candidates)} view(s)"


@dataclass(frozen=True)
class ScoredPath(StepPayload):
    """One path of the beam search with its score and its last hop's score components."""

    nodes: tuple[str, ...]
    score: float
    names: tuple[str, ...] = ()  # display names of ``nodes``
    edges: tuple[str, ...] = ()
    region: str = ""  # the seed region the path grew from
    view: str = "standard"  # "standard" | "connector" (joins two regions)
    components: dict[str, float] = field(default_factory=dict)
    joins: tuple[str, ...] = ()

    def walk(self) -> str:
        """The node names joined by →."""
        return " → ".join(str(n) for n in (self.names or self.nodes))

    def line(self) -> str:
        tag = f" [connector {'/'.join(self.joins)}]" if self.view == "connector" else ""
        return f"{self.score:.3f} {self.walk()}{tag}"


@dataclass(frozen=True)
class TraversalDepth(StepPayload):
    """One depth of the beam search: paths scored, kept and the best pruned ones (all are
    counted in ``pruned_count``), kept connectors, novelty gain and evidence completeness."""

    depth: int
    candidates: int = 0
    kept: tuple[ScoredPath, ...] = ()
    pruned: tuple[ScoredPath, ...] = ()
    pruned_count: int = 0
    connectors: int = 0
    gain: float = 0.0
    completeness: float = 0.0

    def line(self) -> str:
        return (
            f"depth {self.depth}: {self.candidates} paths scored, {len(self.kept)} kept, "
            f"{self.pruned_count} pruned; gain {self.gain:.2f}, "
            f"completeness {self.completeness:.2f}"
        )


@dataclass(frozen=True)
class ExplorationStop(StopDecision):
    """Why the exploration stopped (``rounds``: the depth reached), the paths it evaluated
    and the gain/completeness curve the stop rule read, one point per depth."""

    paths_evaluated: int = 0
    curve: tuple[dict[str, float], ...] = ()

    def line(self) -> str:
        return f"stopped: {self.reason} at depth {self.rounds}, {self.paths_evaluated} paths"


@dataclass(frozen=True)
class EvidenceSelection(Selection):
    """Role-aware selection: kept ids (``dropped``: id and why), each kept item's role, the
    items restored to the preservation floor, the source passages and what the token cap cut."""

    roles: dict[str, str] = field(default_factory=dict)  # kept id → core/complementary/support
    passages: tuple[str, ...] = ()
    restored: tuple[str, ...] = ()
    over_tokens: tuple[str, ...] = ()
    budget: int = 0

    def line(self) -> str:
        return (
            f"kept {len(self.kept)} of budget {self.budget}, {len(self.passages)} passages, "
            f"{len(self.restored)} restored, {len(self.dropped)} dropped"
        )


@dataclass(frozen=True)
class MosaicDetails(AnswerDetails):
    """What a MOSAIC answer reports: its policy and the per-question numbers of its run."""

    policy: dict[str, Any]
    label: str
    paths_evaluated: int = 0
    evidence_retained: int = 0
    passages_retained: int = 0
    depth_reached: int = 0
    stop_reason: str = ""
    connectors_used: int = 0
    seeds: int = 0
    analyzer_fallback: bool = False
    adjustments: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "policy", _frozen(self.policy))

    def columns(self) -> dict[str, Any]:
        """The record columns MOSAIC writes: ``policy`` (controls and label) and ``stats``."""
        policy = {k: list(v) if isinstance(v, tuple) else v for k, v in self.policy.items()}
        stats = {
            "paths_evaluated": self.paths_evaluated,
            "evidence_retained": self.evidence_retained,
            "passages_retained": self.passages_retained,
            "depth_reached": self.depth_reached,
            "stop_reason": self.stop_reason,
            "connectors_used": self.connectors_used,
            "seeds": self.seeds,
            "analyzer_fallback": self.analyzer_fallback,
            "adjustments": self.adjustments,
            "policy_label": self.label,  # flat: counts distinct policy combinations
            "policy": dict(policy),
        }
        return {"policy": policy | {"label": self.label}, "stats": stats}
