"""Names beside points without overprinting: a label goes to the first of a few places around
its point where it overlaps no other text, legend or point and stays inside the axes.

A simple stand-in for adjustText (not a dependency): :func:`place_labels` tries
:data:`OFFSETS` in turn for each label, in the order given, so the most important labels
(first) get the closest places. A label no place fits is numbered instead: its point gets the
number (farther out if need be, :data:`FAR`, joined by a thin line) and :func:`place_labels`
returns the key (``"1 NaiveRAG"``) for the caller to print under the axes; labels that can go
unsaid (a graph's edge labels, ``numbered=False``) are left out instead. Place labels after
the figure's layout is final (``fig.tight_layout()``): the boxes are measured in canvas pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.transforms import Bbox

from ace_lab.viz.sizes import MIN_FONT_PT

#: Places tried around a point: offset in points, horizontal and vertical alignment.
OFFSETS: tuple[tuple[float, float, str, str], ...] = (
    (4, 2, "left", "bottom"),
    (4, -2, "left", "top"),
    (-4, 2, "right", "bottom"),
    (-4, -2, "right", "top"),
    (0, 5, "center", "bottom"),
    (0, -5, "center", "top"),
    (6, 0, "left", "center"),
    (-6, 0, "right", "center"),
    (4, 9, "left", "bottom"),
    (4, -9, "left", "top"),
    (-4, 9, "right", "bottom"),
    (-4, -9, "right", "top"),
    (0, 12, "center", "bottom"),
    (0, -12, "center", "top"),
    (10, 0, "left", "center"),
    (-10, 0, "right", "center"),
)
#: Places tried for a number, farther out (joined to its point by a thin line): 8 directions
#: at 14, 22 and 30 points.
FAR: tuple[tuple[float, float, str, str], ...] = tuple(
    (round(r * dx, 1), round(r * dy, 1), "center", "center")
    for r in (14, 22, 30)
    for dx, dy in (
        (1, 0),
        (0.7, 0.7),
        (0, 1),
        (-0.7, 0.7),
        (-1, 0),
        (-0.7, -0.7),
        (0, -1),
        (0.7, -0.7),
    )
)
#: Half the side of the box kept clear around each point (pixels).
POINT_PX = 3.0


def _clear(box: Bbox, inside: Bbox, taken: Sequence[Bbox]) -> bool:
    if box.x0 < inside.x0 or box.x1 > inside.x1 or box.y0 < inside.y0 or box.y1 > inside.y1:
        return False
    return not any(box.overlaps(other) for other in taken)


def _place(
    ax: plt.Axes, text: str, point, colour: str, fontsize: float, clear, offsets=OFFSETS
) -> Bbox | None:
    """Annotate ``text`` at the first of ``offsets`` where ``clear(box)``; its box, or None.
    Beyond the first ring a thin line joins the text to its point."""
    renderer = ax.figure.canvas.get_renderer()
    for dx, dy, ha, va in offsets:
        far = abs(dx) > 10 or abs(dy) > 10
        note = ax.annotate(
            text,
            point,
            xytext=(dx, dy),
            textcoords="offset points",
            ha=ha,
            va=va,
            fontsize=fontsize,
            color=colour,
            arrowprops={"arrowstyle": "-", "lw": 0.4, "color": colour} if far else None,
        )
        box = note.get_window_extent(renderer)
        if clear(box):
            return box
        note.remove()
    return None


def place_labels(
    ax: plt.Axes,
    points: Sequence[tuple[float, float]],
    labels: Sequence[str],
    colours: Sequence[str] | None = None,
    fontsize: float = MIN_FONT_PT,
    avoid: Sequence[tuple[float, float]] = (),
    numbered: bool = True,
) -> list[str]:
    """Write ``labels[i]`` beside data point ``points[i]`` where it fits (see the module),
    clear of the points in ``avoid`` too (unnamed points, a curve's markers); return the key
    of the labels that were numbered instead, in order (empty when all fit). With
    ``numbered=False`` a label no place fits is not drawn, and the list holds those labels."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    taken = [t.get_window_extent(renderer) for t in ax.texts if t.get_visible()]
    legend = ax.get_legend()
    if legend is not None:
        taken.append(legend.get_window_extent(renderer))
    marks = [
        Bbox.from_extents(x - POINT_PX, y - POINT_PX, x + POINT_PX, y + POINT_PX)
        for x, y in (ax.transData.transform(list(points)) if len(points) else [])
    ]
    dots = marks + [
        Bbox.from_extents(x - POINT_PX, y - POINT_PX, x + POINT_PX, y + POINT_PX)
        for x, y in (ax.transData.transform(list(avoid)) if len(avoid) else [])
    ]
    key: list[str] = []
    for i, (point, label) in enumerate(zip(points, labels, strict=True)):
        own = ax.transData.transform([point])[0]
        # every box but the point's own (and an avoided point at the same place)
        others = taken + [b for b in dots if b is not marks[i] and not b.contains(*own)]
        colour = colours[i] if colours is not None else "black"

        def clear(box: Bbox, others: list[Bbox] = others) -> bool:
            return _clear(box, inside, others)

        box = _place(ax, label, point, colour, fontsize, clear)
        if box is None and not numbered:  # left out; the caller may say so
            key.append(label)
            continue
        if box is None:  # numbered instead; the key names it
            number = str(len(key) + 1)
            box = _place(ax, number, point, colour, fontsize, clear, OFFSETS + FAR)
            if box is None:  # nowhere clear even for a number: beside the point all the same
                box = _place(ax, number, point, colour, fontsize, lambda _: True)
            key.append(f"{number} {label}")
        taken.append(box)
    return key


def key_under(
    ax: plt.Axes, lines: Sequence[str], legend: Any, fontsize: float | None = None
) -> None:
    """Write the key of numbered labels (``lines``, one per line) centred under ``legend`` (the
    artist placed below the drawing), so a figure's key stays outside what it explains."""
    ax.annotate(
        "\n".join(lines),
        (0.5, 0),
        xycoords=legend,
        xytext=(0, -2),
        textcoords="offset points",
        ha="center",
        va="top",
        **({} if fontsize is None else {"fontsize": fontsize}),
    )
