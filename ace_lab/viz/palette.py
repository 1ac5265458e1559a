"""Colours shared by every figure and graph view.

One colour per node label, evidence branch, evidence kind and retrieval pass, so the same thing
reads the same way in every notebook, every pyvis view and every matplotlib figure. Anything
without a fixed colour gets a stable one from its name (the same name, the same colour, always).
Methods have their own fixed colours (:data:`METHOD_COLOURS`, by head) and a figure with many
series takes distinct colours from :data:`SERIES_COLOURS` (:func:`method_colours`).
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


#: Twenty distinct colours for figures with many series (tab10, then darker and lighter hues
#: that none of tab10's resembles closely; one grey only), so a legend of up to twenty entries
#: never repeats a colour.
SERIES_COLOURS: tuple[str, ...] = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#393b79",
    "#637939",
    "#8c6d31",
    "#843c39",
    "#7b4173",
    "#aec7e8",
    "#ffbb78",
    "#98df8a",
    "#f7b6d2",
    "#6b6ecf",
)
#: One colour per method head, the same in every figure (``ace-full`` is always red).
METHOD_COLOURS: dict[str, str] = {
    "naive": "#7f7f7f",
    "hirag": "#1f77b4",
    "graphrag": "#17becf",
    "lightrag": "#bcbd22",
    "hipporag": "#2ca02c",
    "ace-full": "#d62728",
    "ace-adaptive": "#ff7f0e",
    "ace-fixed": "#8c564b",
    "arcrag": "#9467bd",
    "direct-cypher": "#e377c2",
    "mosaic": "#393b79",
    "auto": "#000000",
}


def method_colours(methods: Iterable[str]) -> dict[str, str]:
    """A colour per method id of one figure, all different: a head's fixed colour
    (:data:`METHOD_COLOURS`) for the id that is exactly the head, and for every other id
    (variants, compositions, unknown heads) a stable colour from :data:`SERIES_COLOURS` that no
    other id of the figure has; past twenty ids colours repeat, in order."""
    ids = list(dict.fromkeys(methods))
    out = {m: METHOD_COLOURS[m] for m in ids if m in METHOD_COLOURS}
    for method in ids:
        if method in out:
            continue
        taken = set(out.values())
        count = len(SERIES_COLOURS)
        start = zlib.crc32(method.encode("utf-8")) % count
        free = [SERIES_COLOURS[(start + k) % count] for k in range(count)]
        free = [c for c in free if c not in taken]
        out[method] = free[0] if free else SERIES_COLOURS[len(out) % count]
    return out
