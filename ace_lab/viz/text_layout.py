"""Checks that a figure's text is readable: no two texts overlap, none under 7 pt, the figure
no wider than two columns.

:func:`drawn_texts` draws the figure once and records every text matplotlib actually paints
(titles, axis labels, tick labels inside the view, legend entries, annotations, bar labels) with
its box on the canvas; texts that are hidden, empty or outside the view are not painted, so
they are not checked. :func:`layout_problems` lists what is wrong in one line each — the test of
every committed figure (``tests/committed/test_figures.py``) asserts it is empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import matplotlib.pyplot as plt
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from ace_lab.viz.sizes import DOUBLE_COLUMN, MIN_FONT_PT

#: Boxes may touch by this much (pixels at the figure's dpi) without counting as overlapping:
#: neighbouring tick labels' boxes meet at their padding.
TOLERANCE_PX = 1.0


@contextmanager
def _recording(drawn: list[tuple[Text, Bbox]]) -> Iterator[None]:
    original = Text.draw

    def draw(self: Text, renderer) -> None:  # type: ignore[no-untyped-def]
        original(self, renderer)
        if self.get_visible() and self.get_text().strip():
            drawn.append((self, self.get_window_extent(renderer)))

    Text.draw = draw  # type: ignore[method-assign]
    try:
        yield
    finally:
        Text.draw = original  # type: ignore[method-assign]


def drawn_texts(fig: plt.Figure) -> list[tuple[Text, Bbox]]:
    """Every non-empty text ``fig`` paints, with its box in canvas pixels, in drawing order."""
    if not isinstance(fig.canvas, FigureCanvasAgg):  # a closed pyplot figure draws nothing
        FigureCanvasAgg(fig)
    drawn: list[tuple[Text, Bbox]] = []
    with _recording(drawn):
        fig.canvas.draw()
    return drawn


def _overlap(a: Bbox, b: Bbox) -> bool:
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return width > TOLERANCE_PX and height > TOLERANCE_PX


def _shown(text: Text) -> str:
    return repr(" ".join(text.get_text().split())[:40])


def _overlapping(drawn: list[tuple[Text, Bbox]]) -> Iterator[tuple[Text, Text]]:
    for i, (a, box_a) in enumerate(drawn):
        for b, box_b in drawn[i + 1 :]:
            if _overlap(box_a, box_b):
                yield a, b


def layout_problems(fig: plt.Figure, min_pt: float = MIN_FONT_PT) -> list[str]:
    """What keeps ``fig`` from going into a paper as it is, one line each: overlapping texts,
    texts under ``min_pt`` points, a canvas or a saved (tight) figure wider than two columns
    (empty when none)."""
    problems = []
    width = fig.get_size_inches()[0]
    if width > DOUBLE_COLUMN + 1e-6:
        problems.append(f"{width:.2f} in wide (a paper's two columns are {DOUBLE_COLUMN} in)")
    drawn = drawn_texts(fig)
    # what is saved is the tight box around everything drawn (a legend outside the axes too)
    saved = fig.get_tightbbox(fig.canvas.get_renderer()).width
    if saved > DOUBLE_COLUMN + 1e-6:
        problems.append(
            f"{saved:.2f} in wide as saved (a paper's two columns are {DOUBLE_COLUMN} in)"
        )
    for text, _ in drawn:
        if text.get_fontsize() < min_pt - 1e-6:
            problems.append(f"{_shown(text)} at {text.get_fontsize():g} pt (under {min_pt:g})")
    problems += [f"{_shown(a)} overlaps {_shown(b)}" for a, b in _overlapping(drawn)]
    return problems
