"""MOSAIC's per-query exploration policy: one bounded, frozen ``ExplorationPolicy``.

The policy is the whole interface between the analyzer and the shared retrieval pipeline
(paper §5, "Policy space and validation"): the analyzer may only choose values inside these
bounds, so it can change *how much* and *where* the pipeline searches but never invent an
operator. Untrusted values go through :meth:`ExplorationPolicy.clamp`, which clamps numbers,
replaces unsupported values and missing fields by the conservative default and records every
change as an :class:`~ace_lab.bounded.Adjustment`.

Which values are the paper's and which are ours (the seed paper is a summary and leaves most
exact values open):

- paper: seed count 5–12, depth cap ``D_q`` 2–4, evidence budget 8–16, patience 1, the medium
  completeness threshold 0.35, the control set itself (per-target seeding, beam, connectors,
  shallow/medium/deep stopping, preservation floor, cardinality, source window);
- ours: every default, the beam range 4–24, minimum depth 1–3, preservation floor 2–8, the
  shallow (0.25) and deep (0.50) thresholds, the novelty-gain floor (``GAIN_LOW``), up to 4
  targets of ≤ 80 characters, the source window of 0–2 neighbouring chunks, and the fixed
  narrow / medium / wide policies (:data:`FIXED_POLICIES`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Self

from ace_lab.bounded import Adjustment, Bounded, ConfigError, bounded

Cardinality = Literal["single", "list"]
StopSetting = Literal["shallow", "medium", "deep"]

#: Evidence-completeness threshold of each stopping setting (medium 0.35 is the paper's).
STOP_THRESHOLDS: dict[str, float] = {"shallow": 0.25, "medium": 0.35, "deep": 0.50}
#: Novelty gain (relevance mass first reached at a depth over all mass reached so far, see
#: ``mosaic.stopping``) below which a depth counts as "low gain" (ours).
GAIN_LOW = 0.30
#: At most this many targets, each at most ``MAX_TARGET_CHARS`` long (ours).
MAX_TARGETS = 4
MAX_TARGET_CHARS = 80


@dataclass(frozen=True)
class ExplorationPolicy(Bounded):
    """One query's bounded controls over seeds, traversal, stopping and evidence selection.

    Defaults form the conservative default policy (used when the analyzer's output is
    malformed): medium-sized, no per-target seeding, no connectors.
    """

    seed_count: int = bounded(
        8, lo=5, hi=12, help="seed entities kept after fusion (paper range 5–12; default ours)"
    )
    per_target: bool = bounded(
        False, help="seed each target separately before de-duplication (paper control)"
    )
    targets: tuple[str, ...] = bounded(
        (), help=f"the entities the question compares or names (≤ {MAX_TARGETS}, ours)"
    )
    max_depth: int = bounded(
        3, lo=2, hi=4, help="depth cap D_q in hops (paper range 2–4; default ours)"
    )
    min_depth: int = bounded(
        1, lo=1, hi=3, help="hops explored before stopping may fire (≤ D_q; ours)"
    )
    beam_width: int = bounded(
        8, lo=4, hi=24, help="beam W_q: paths kept per depth, a hard cap (range and default ours)"
    )
    connectors: bool = bounded(
        False, help="connector exploration joining regions of different targets/seeds (paper)"
    )
    stop_threshold: StopSetting = bounded(
        "medium",
        choices=tuple(STOP_THRESHOLDS),
        help="completeness threshold: shallow 0.25 (ours), medium 0.35 (paper), deep 0.50 (ours)",
    )
    patience: int = bounded(
        1, lo=1, hi=1, help="low-gain depths in a row before stopping (paper: 1)"
    )
    evidence_budget: int = bounded(
        12, lo=8, hi=16, help="evidence items kept after selection (paper range 8–16; default ours)"
    )
    preservation_floor: int = bounded(
        4, lo=2, hi=8, help="selection never keeps fewer items than this (≤ budget; ours)"
    )
    cardinality: Cardinality = bounded(
        "single",
        choices=("single", "list"),
        help="answer cardinality: list keeps sibling relations of the anchors (paper signal)",
    )
    anchored: bool = bounded(
        False, help="the question names a specific anchor: adaptive path weights (paper)"
    )
    source_window: int = bounded(
        1, lo=0, hi=2, help="neighbouring chunks each side of a source passage (ours)"
    )

    def __post_init__(self) -> None:
        if not isinstance(self.targets, tuple) or not all(
            isinstance(t, str) and t.strip() for t in self.targets
        ):
            raise ConfigError(
                f"ExplorationPolicy.targets must be non-empty strings, got {self.targets!r}"
            )
        if len(self.targets) > MAX_TARGETS:
            raise ConfigError(f"at most {MAX_TARGETS} targets, got {len(self.targets)}")
        super().__post_init__()
        if self.min_depth > self.max_depth:
            raise ConfigError(f"min_depth {self.min_depth} > max_depth {self.max_depth}")
        if self.preservation_floor > self.evidence_budget:
            raise ConfigError(
                f"preservation_floor {self.preservation_floor} > budget {self.evidence_budget}"
            )

    @property
    def threshold(self) -> float:
        return STOP_THRESHOLDS[self.stop_threshold]

    @classmethod
    def clamp(cls, values: Mapping[str, Any] | None = None) -> tuple[Self, list[Adjustment]]:
        """:meth:`Bounded.clamp` plus the cross-field repairs; never raises for bad values.

        ``targets`` is cleaned first (non-strings dropped, stripped, de-duplicated, cut to
        :data:`MAX_TARGETS`), then each field is clamped, then ``min_depth`` and the floor are
        lowered to fit ``max_depth`` and the budget. Every change is an ``Adjustment``.
        """
        values = dict(values) if isinstance(values, Mapping) else {}
        changes: list[Adjustment] = []
        if "targets" in values:
            given = values["targets"]
            cleaned = clean_targets(given)
            if list(cleaned) != (list(given) if isinstance(given, (list, tuple)) else None):
                changes.append(Adjustment("targets", given, cleaned, "cleaned"))
            values["targets"] = cleaned
        safe = {k: values[k] for k in values if isinstance(k, str)}
        changes += [
            Adjustment(repr(k), values[k], None, "unknown field")
            for k in values
            if not isinstance(k, str)
        ]
        crossed = {n: safe.pop(n) for n in ("min_depth", "preservation_floor") if n in safe}
        policy, more = super().clamp(safe)
        changes += [c for c in more if c.field not in ("min_depth", "preservation_floor")]
        probe, more = _Crossed.clamp(crossed)
        changes += more
        for name, limit in (
            ("min_depth", policy.max_depth),
            ("preservation_floor", policy.evidence_budget),
        ):
            value = getattr(probe, name)
            if value > limit:
                changes.append(Adjustment(name, value, limit, f"lowered to fit {limit}"))
                value = limit
            policy = dataclasses.replace(policy, **{name: value})
        return policy, changes

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["targets"] = list(self.targets)
        return out

    @property
    def label(self) -> str:
        """Compact label, e.g. ``s8 d1-3 w8 b12 medium``, plus the switches that are on."""
        parts = [
            f"s{self.seed_count}",
            f"d{self.min_depth}-{self.max_depth}",
            f"w{self.beam_width}",
            f"b{self.evidence_budget}",
            self.stop_threshold,
        ]
        parts += [n for n in ("per_target", "connectors", "anchored") if getattr(self, n)]
        return " ".join(parts + (["list"] if self.cardinality == "list" else []))


def _same_field(name: str) -> Any:
    """A field with the default and bounds of ``ExplorationPolicy.<name>``."""
    f = ExplorationPolicy.__dataclass_fields__[name]
    return dataclasses.field(default=f.default, metadata=f.metadata)


@dataclass(frozen=True)
class _Crossed(Bounded):
    """The two fields bounded by another field, clamped on their own first (same bounds)."""

    min_depth: int = _same_field("min_depth")
    preservation_floor: int = _same_field("preservation_floor")


def clean_targets(value: Any) -> tuple[str, ...]:
    """``value`` as at most :data:`MAX_TARGETS` distinct, stripped, non-empty strings."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        return ()
    out: list[str] = []
    for item in value:
        if isinstance(item, str):
            text = " ".join(item.split())[:MAX_TARGET_CHARS]
            if text and text.lower() not in {t.lower() for t in out}:
                out.append(text)
    return tuple(out[:MAX_TARGETS])


#: The canonical fixed policies (ours; the paper names them but not their values).
FIXED_POLICIES: dict[str, ExplorationPolicy] = {
    "narrow": ExplorationPolicy(
        seed_count=5,
        max_depth=2,
        beam_width=4,
        stop_threshold="shallow",
        evidence_budget=8,
        preservation_floor=2,
        source_window=0,
    ),
    "medium": ExplorationPolicy(),
    "wide": ExplorationPolicy(
        seed_count=12,
        max_depth=4,
        beam_width=24,
        connectors=True,
        stop_threshold="deep",
        evidence_budget=16,
        preservation_floor=6,
        source_window=2,
    ),
}
#: The default of ``mosaic-budget-matched``: Fixed Medium's budget and depth, until the lead
#: sets them from MOSAIC's measured means (``mosaic-budget-matched:<budget>x<depth>``).
BUDGET_MATCHED_DEFAULT = (12, 3)


def budget_matched(budget: int, depth: int) -> ExplorationPolicy:
    """Fixed Medium with the evidence budget and depth cap set (each clamped into range)."""
    policy, _ = ExplorationPolicy.clamp(
        {**FIXED_POLICIES["medium"].to_dict(), "evidence_budget": budget, "max_depth": depth}
    )
    return policy
