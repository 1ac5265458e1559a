"""MOSAIC's cumulative-gain stopping rule (paper §5, "Cumulative-gain stopping").

After each depth the traversal reports two numbers:

- *novelty gain* ``g_d``: the relevance mass of the evidence first reached at depth ``d`` over
  the mass of everything reached so far (:func:`novelty_gain`; 1.0 at the first depth);
- *evidence completeness* ``c_d``: the share of the question's requirement units — its content
  words and its targets — that the evidence reached so far mentions (:func:`completeness`).

Exploration stops after the minimum depth when the gain has been low (< ``GAIN_LOW``) for
``patience`` depths in a row (paper: 1) and completeness has reached the policy's threshold
(0.35 for the paper's medium setting), or at the depth cap ``D_q``, or when no path can grow.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ace_lab.mosaic.policy import GAIN_LOW, ExplorationPolicy

#: Stop reasons, as recorded in the trace (``ExplorationStop``) and the ``stats`` column.
STOP_REASONS = ("converged", "depth_cap", "exhausted")

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]+")
_STOPWORDS = frozenset(
    word
    for line in (
        "the a an of in on at to for from by with and or but is are was were be been being do",
        "does did has have had what which who whom whose when where why how that this these",
        "those it its as than then there their they them he she his her not no yes also into",
        "about after before between both either each other same more most many much can could",
        "would should will",
    )
    for word in line.split()
)


def requirement_units(query: str, targets: Iterable[str] = ()) -> list[str]:
    """The question's content words (lower case, ≥ 3 letters, no stopwords) and its targets."""
    words = [w.lower() for w in _WORD.findall(query)]
    units = [w for w in dict.fromkeys(words) if len(w) >= 3 and w not in _STOPWORDS]
    return units + [t.lower() for t in targets if t.lower() not in units]


def completeness(units: list[str], texts: Iterable[str]) -> float:
    """Share of ``units`` mentioned in ``texts`` (1.0 when there are no units)."""
    if not units:
        return 1.0
    blob = " ".join(texts).lower()
    return sum(u in blob for u in units) / len(units)


def novelty_gain(new: Mapping[str, float], seen: Mapping[str, float]) -> float:
    """Mass of the ``new`` items over the mass of ``seen`` ∪ ``new`` (0 when nothing is)."""
    fresh = sum(m for i, m in new.items() if i not in seen)
    total = sum(seen.values()) + fresh
    return fresh / total if total > 0 else 0.0


@dataclass
class StopRule:
    """The rule for one query; :meth:`observe` is called once per depth, in order."""

    threshold: float
    min_depth: int
    max_depth: int
    patience: int = 1
    gain_low: float = GAIN_LOW
    curve: list[dict[str, float]] = field(default_factory=list)
    _low: int = 0

    @classmethod
    def of(cls, policy: ExplorationPolicy) -> StopRule:
        return cls(policy.threshold, policy.min_depth, policy.max_depth, policy.patience)

    def observe(self, depth: int, gain: float, complete: float) -> str | None:
        """The stop reason after ``depth`` (None: go one depth deeper)."""
        self._low = self._low + 1 if gain < self.gain_low else 0
        self.curve.append(
            {"depth": depth, "gain": round(gain, 4), "completeness": round(complete, 4)}
        )
        if depth >= self.min_depth and self._low >= self.patience and complete >= self.threshold:
            return "converged"
        if depth >= self.max_depth:
            return "depth_cap"
        return None
