"""Colours shared by every figure and graph view.

One colour per node label, evidence branch, evidence kind and retrieval pass, so the same thing
reads the same way in every notebook, every pyvis view and every matplotlib figure. Anything
without a fixed colour gets a stable one from its name (the same name, the same colour, always).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping

#: Node labels of every graph family (typed labels such as ``Person`` fall back to the hash).
LABEL_COLOURS: dict[str, str] = {
    "Entity": "#4e79a7",
    "Summary": "#f28e2b",
    "Community": "#e15759",
    "Chunk": "#bab0ac",
}
#: Where an evidence item was found: the base retrieval, one branch, or more than one branch.
BRANCH_COLOURS: dict[str, str] = {
    "base": "#9e9e9e",
    "depth": "#1f77b4",
    "breadth": "#ff7f0e",
    "both": "#8e44ad",
}
#: Evidence kinds (``ace_lab.evidence.EVIDENCE_KINDS``).
KIND_COLOURS: dict[str, str] = {
    "entity": "#4e79a7",
    "relation": "#59a14f",
    "passage": "#bab0ac",
    "community": "#e15759",
    "report": "#ff9da7",
    "summary": "#f28e2b",
    "path": "#b07aa1",
    "row": "#76b7b2",
}
#: Retrieval rounds / passes 0, 1, 2, … (light to dark, so later passes stand out).
PASS_COLOURS: tuple[str, ...] = (
    "#c6dbef",
    "#9ecae1",
    "#6baed6",
    "#4292c6",
    "#2171b5",
    "#08519c",
    "#08306b",
)
#: Abstraction levels 0 (base entities, the entity colour), 1, 2, … (summaries, darker higher).
LEVEL_COLOURS: tuple[str, ...] = (
    "#4e79a7",
    "#fdae6b",
    "#f28e2b",
    "#d95f0e",
    "#a63603",
    "#7f2704",
)
#: Colours for anything without a fixed one (typed labels such as ``Person``): none of them is a
#: fixed label colour, and a view gives each of its groups a different one (``view_colours``).
_PALETTE = (
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#76b7b2",
    "#17becf",
    "#bcbd22",
    "#8c564b",
    "#e377c2",
    "#2ca02c",
    "#7f7f7f",
)


def _slot(name: str) -> int:
    return zlib.crc32(name.encode("utf-8")) % len(_PALETTE)  # the same slot in every run


def label_colour(label: str) -> str:
    """The colour of a node label: fixed for the common labels, else stable by name."""
    if label in LABEL_COLOURS:
        return LABEL_COLOURS[label]
    return _PALETTE[_slot(label)]


def pass_colour(round_: int) -> str:
    """The colour of retrieval round / pass ``round_`` (the last colour for later passes)."""
    return PASS_COLOURS[min(max(int(round_), 0), len(PASS_COLOURS) - 1)]


def level_colour(level: int) -> str:
    """The colour of abstraction level ``level`` (the last colour for higher levels)."""
    return LEVEL_COLOURS[min(max(int(level), 0), len(LEVEL_COLOURS) - 1)]


def group_colour(group: str, palette: Mapping[str, str] | None = None) -> str:
    """``palette[group]`` when given, else the label colour of ``group``."""
    if palette is not None and group in palette:
        return palette[group]
    return label_colour(group)


def view_colours(groups: Iterable[str], palette: Mapping[str, str] | None = None) -> dict[str, str]:
    """A colour per group for one view or figure: fixed ones from ``palette`` or the label
    colours; every other group its stable colour unless another group of the same view already
    has it, then the next free one, so no two groups in a legend look alike."""
    fixed = {**LABEL_COLOURS, **(palette or {})}
    out = {g: fixed[g] for g in groups if g in fixed}
    for group in sorted(set(groups) - set(out)):
        taken = set(out.values())
        slots = [(_slot(group) + k) % len(_PALETTE) for k in range(len(_PALETTE))]
        free = [_PALETTE[i] for i in slots if _PALETTE[i] not in taken]
        out[group] = free[0] if free else _PALETTE[slots[0]]
    return out


def pale(colour: str, amount: float = 0.7) -> str:
    """``colour`` (``#rrggbb``) mixed with white: ``amount`` 0 keeps it, 1 gives white."""
    rgb = [int(colour.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)]
    mixed = [round(c + (255 - c) * amount) for c in rgb]
    return "#" + "".join(f"{c:02x}" for c in mixed)
