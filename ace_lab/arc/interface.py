"""``Ŝ_q``, the query-local graph interface, and ``I_q``, the paths that confirm it.

Exploration reports what it saw near the anchors: relation descriptors (with their paraphrased
variants), signatures ``(t_i, ρ, t_j)`` with how often each was observed, groups of names that
denote the same thing (aliases), and example paths. The planner and the generator read it
through :meth:`QueryInterface.render`; the trace keeps it whole (:meth:`QueryInterface.built`).
Anchors are :class:`~ace_lab.arc.steps.ArcAnchor` payloads, recorded as they are.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ace_lab.arc.steps import ArcAnchor, CypherQuery, InterfaceBuilt


@dataclass(frozen=True)
class QueryInterface:
    """What exploration found near the anchors of one question."""

    anchors: tuple[ArcAnchor, ...] = ()
    descriptors: tuple[str, ...] = ()
    signatures: tuple[tuple[str, str, str, int], ...] = ()
    alias_groups: tuple[tuple[str, ...], ...] = ()
    paths: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.descriptors or self.signatures or self.paths)

    @property
    def size(self) -> int:
        """Descriptors + signatures + alias groups: the interface's size (not the graph's)."""
        return len(self.descriptors) + len(self.signatures) + len(self.alias_groups)

    def render(self, max_paths: int = 20) -> str:
        lines = []
        if self.anchors:
            lines.append(
                "Anchors: "
                + "; ".join(f"{a.text} [{a.key}] ({', '.join(a.labels)})" for a in self.anchors)
            )
        if self.descriptors:
            lines.append("Relation descriptors seen: " + "; ".join(self.descriptors))
        if self.signatures:
            sigs = ", ".join(f"({a})-[{r}]->({b}) ×{c}" for a, r, b, c in self.signatures)
            lines.append("Signatures near the anchors: " + sigs)
        if self.alias_groups:
            groups = "; ".join(" = ".join(g) for g in self.alias_groups)
            lines.append("Aliases (same thing): " + groups)
        if self.paths:
            lines.append("Confirmed paths:")
            lines.extend(f"- {p}" for p in self.paths[:max_paths])
        if self.notes:
            lines.append("Explorer notes: " + " ".join(self.notes))
        return "\n".join(lines) if lines else "(no interface: nothing was explored)"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def built(self, pass_index: int, queries: tuple[CypherQuery, ...] = ()) -> InterfaceBuilt:
        """What the ``explore`` step of pass ``pass_index`` records (with the queries it ran)."""
        return InterfaceBuilt(
            pass_index=pass_index,
            anchors=self.anchors,
            descriptors=self.descriptors,
            signatures=self.signatures,
            alias_groups=self.alias_groups,
            paths=self.paths,
            notes=self.notes,
            size=self.size,
            rendered=self.render(),
            queries=tuple(queries),
        )
