"""One MOSAIC query's exploration as a static paper figure (the PNG next to the pyvis view of
:mod:`ace_lab.mosaic.report.exploration`; notebook 05 writes both with :func:`save_exploration`).

A column per depth: each node stands in the column of the depth at which the exploration first
reached it (seeds first), edges styled as in the view. A column is as far from the next as its
longest name is wide, so names go beside their nodes (:mod:`ace_lab.viz.label_placement`); a name
that fits nowhere is numbered, the key under the legend. The figure is one paper column wide
when the columns and their names fit in one, else two (``ace_lab.viz.sizes``); the legend is
under the drawing, the depths head the columns.
"""

from __future__ import annotations

from pathlib import Path
from statistics import mean
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch
from matplotlib.textpath import TextToPath

from ace_lab.evidence import Trace
from ace_lab.mosaic.report.exploration import (
    CONNECTOR_COLOUR,
    KEPT_EDGE_COLOUR,
    PRUNED_EDGE_COLOUR,
    depth_colour,
    depth_group,
    exploration_graph,
    exploration_view,
    stop_reason,
)
from ace_lab.viz.label_placement import key_under, place_labels
from ace_lab.viz.network import save_view_and_figure
from ace_lab.viz.sizes import (
    DOUBLE_COLUMN,
    FONT_PT,
    MIN_FONT_PT,
    SINGLE_COLUMN,
    paper_figure,
    paper_style,
)

#: How the figure draws each kind of edge: colour, line style, width.
EDGE_STYLES = {
    "connector": (CONNECTOR_COLOUR, "dashed", 1.2),
    "pruned": (PRUNED_EDGE_COLOUR, "dotted", 0.6),
    "standard": (KEPT_EDGE_COLOUR, "solid", 0.9),
}
#: Which kind of edge wins where a pair is both (the view's order).
EDGE_RANK = {"connector": 0, "standard": 1, "pruned": 2}
#: The legend's words for each kind of edge.
EDGE_WORDS = {
    "standard": "kept path",
    "connector": "kept connector path",
    "pruned": "pruned path",
}
PRUNED_NAME_COLOUR = "#777777"
#: Characters of a node name drawn (longer ones are shortened; the HTML view has them whole):
#: at most, at least (where the columns would not fit two paper columns) and in the key.
NAME_CHARS, SHORTEST_NAME, KEY_NAME_CHARS = 30, 14, 60
#: Inches between a column's longest name and the next column (marker and offset included),
#: left of the first column and right of the last column's longest name (its offset).
COLUMN_GAP, LEFT_MARGIN, RIGHT_MARGIN = 0.3, 0.12, 0.15
#: Inches between two column heads.
HEAD_GAP = 0.15
#: Inches the axes lose to the figure's edges (no tick labels left or right).
SIDE_MARGINS = 0.15
#: Inches per node of the fullest column, and rows left free above it (room for a name over
#: the top node) and below it.
ROW_PITCH, TOP_ROWS, BOTTOM_ROWS = 0.2, 0.9, 0.6
#: Inches per line of text around the drawing (title, column heads, legend), the padding of
#: the figure's edges, and the tallest figure.
LINE_IN, PADDING, MAX_HEIGHT = 0.16, 0.2, 8.5
#: The legend's spacing, in ems of its 7 pt text: a handle, between handle and words, between
#: columns (so its width can be known before it is drawn).
HANDLE_EMS, HANDLE_PAD_EMS, COLUMN_SPACING_EMS = 2.2, 0.4, 1.2


def _plain(text: str, limit: int = NAME_CHARS) -> str:
    """A label matplotlib draws as typed: one line, ``$`` escaped (no mathtext), shortened."""
    text = " ".join(str(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.replace("$", r"\$")


def _width_in(text: str, size: float = MIN_FONT_PT) -> float:
    """Inches ``text`` takes at ``size`` points (measured from the font, no canvas needed)."""
    width, _, _ = TextToPath().get_text_width_height_descent(
        text.replace(r"\$", "$"), FontProperties(size=size), ismath=False
    )
    return width / 72


def _columns(g: dict[str, Any]) -> dict[int, list[str]]:
    """Nodes per depth, top to bottom: nodes a kept path reached before pruned-only ones, each
    group in the mean order of the nodes that lead to it (fewer crossing edges)."""
    columns: dict[int, list[str]] = {}
    for node, d in g["depth"].items():
        columns.setdefault(d, []).append(node)
    parents: dict[str, list[str]] = {}
    for a, b in g["edge_style"]:
        parents.setdefault(b, []).append(a)
    row: dict[str, float] = {}  # the row of each node placed so far (earlier columns)
    for d in sorted(columns):
        keys = {}
        for i, n in enumerate(columns[d]):
            above = [row[p] for p in parents.get(n, ()) if p in row]
            keys[n] = (n in g["pruned"], mean(above) if above else float(i))
        columns[d] = sorted(columns[d], key=keys.__getitem__)
        row |= {n: float(i) for i, n in enumerate(columns[d])}
    return dict(sorted(columns.items()))


def _legend_entries(g: dict[str, Any]) -> tuple[list[Line2D], list[str]]:
    """What the drawing uses, and only that: node kinds, then edge kinds (a node's colour
    darkens with its column, which the column heads name)."""
    kept = [g["depth"][n] for n in g["depth"] if n not in g["pruned"] and g["depth"][n] > 0]
    dot = {"ls": "", "marker": "o", "ms": 4.5}
    entries = [(Line2D([], [], color=depth_colour(0), **dot), "seed")]
    if kept:
        reached = Line2D([], [], color=depth_colour(min(kept)), **dot)
        entries.append((reached, "reached by a kept path"))
    if g["pruned"]:
        hollow = Line2D([], [], mfc="white", mec=depth_colour(1), **dot)
        entries.append((hollow, "on pruned paths only"))
    used = set(g["edge_style"].values())
    for kind in ("standard", "connector", "pruned"):
        if kind in used:
            colour, line, width = EDGE_STYLES[kind]
            entries.append((Line2D([], [], color=colour, ls=line, lw=width), EDGE_WORDS[kind]))
    return [h for h, _ in entries], [w for _, w in entries]


def _column_x(columns: dict[int, list[str]], labels: dict[str, str]) -> tuple[dict, float]:
    """Each column's x (inches at 100 %): as far from the next as its longest name is wide,
    and its head clear of the next column's; and the right end of the drawing."""
    heads = {d: _width_in(depth_group(d)) / 2 for d in columns}
    x, left, previous = {}, 0.0, None
    for d, col in columns.items():
        least = heads[d] + (heads[previous] + x[previous] + HEAD_GAP if x else 0.0)
        x[d] = max(left, least, LEFT_MARGIN)
        left = x[d] + max((_width_in(labels[n]) for n in col), default=0.0) + COLUMN_GAP
        previous = d
    last = x[previous] + heads[previous] if x else 0.0
    return x, max(left - COLUMN_GAP + RIGHT_MARGIN, last)


def _fitting_labels(
    columns: dict[int, list[str]], names: dict[str, str]
) -> tuple[dict[str, str], dict, float]:
    """The names drawn (shortened until the columns fit two paper columns, or to
    :data:`SHORTEST_NAME` characters), the columns' x and the drawing's right end."""
    for limit in range(NAME_CHARS, SHORTEST_NAME - 1, -4):
        labels = {n: _plain(names[n], limit) for col in columns.values() for n in col}
        x, right = _column_x(columns, labels)
        if right <= DOUBLE_COLUMN - 2 * SIDE_MARGINS:
            break
    return labels, x, right


def _fig_width(paper_columns: int) -> float:
    return SINGLE_COLUMN if paper_columns == 1 else DOUBLE_COLUMN


def _legend_columns(words: list[str], width: float) -> int:
    """The most legend columns (up to 3) whose rows are at most ``width`` inches wide."""
    em = MIN_FONT_PT / 72
    for ncols in (3, 2):
        rows, longer = divmod(len(words), ncols)  # as matplotlib fills them, column by column
        sizes = [rows + 1] * longer + [rows] * (ncols - longer)
        starts = [sum(sizes[:c]) for c in range(ncols)]
        columns = [words[a : a + n] for a, n in zip(starts, sizes, strict=True)]
        wide = sum(max(map(_width_in, c), default=0.0) for c in columns if c)
        wide += ncols * (HANDLE_EMS + HANDLE_PAD_EMS) * em + (ncols - 1) * COLUMN_SPACING_EMS * em
        if wide <= width:
            return ncols
    return 1


def _draw(ax: plt.Axes, g: dict[str, Any], pos: dict[str, tuple[float, float]]) -> None:
    """The edges (styled by kind), then a marker per node (hollow, dashed: pruned only). A pair
    the paths walked both ways is one edge, drawn in its strongest kind: two dashed lines over
    each other would read as a solid one."""
    edges: dict[frozenset[str], tuple[tuple[str, str], str]] = {}
    for pair, kind in g["edge_style"].items():
        seen = edges.get(frozenset(pair))
        if seen is None or EDGE_RANK[kind] < EDGE_RANK[seen[1]]:
            edges[frozenset(pair)] = (pair, kind)
    for (a, b), kind in edges.values():
        (x0, y0), (x1, y1) = pos[a], pos[b]
        colour, line, width = EDGE_STYLES[kind]
        # an edge within one column (seed to seed) bends, so it does not hide behind the nodes
        bend = 0.35 if x0 == x1 else 0.0
        ax.add_patch(
            FancyArrowPatch(
                (x0, y0),
                (x1, y1),
                arrowstyle="-",
                color=colour,
                lw=width,
                linestyle=line,
                connectionstyle=f"arc3,rad={bend}",
                zorder=1,
            )
        )
    for node, (px, py) in pos.items():
        is_pruned = node in g["pruned"]
        colour = depth_colour(g["depth"][node])
        ax.scatter(
            [px],
            [py],
            s=22,
            zorder=2,
            color="white" if is_pruned else colour,
            edgecolors=colour,
            linewidths=0.8,
            linestyle="--" if is_pruned else "-",
        )


@paper_style()
def exploration_figure(trace: Trace, graph: Any = None, title: str = "") -> plt.Figure:
    """The exploration of ``trace`` as the module says (``graph`` only adds names a trace
    lacks); ``title`` defaults to one naming the stop reason."""
    g = exploration_graph(trace, graph)
    columns = _columns(g)
    names = dict(zip(g["nodes"]["id"], g["nodes"]["name"], strict=True))
    names = {n: names.get(n, n) for n in g["depth"]}
    labels, x, right = _fitting_labels(columns, names)
    paper_columns = 1 if right <= SINGLE_COLUMN - SIDE_MARGINS else 2
    heading = title or f"MOSAIC exploration (stopped: {stop_reason(trace)})"
    inside = _fig_width(paper_columns) - 2 * SIDE_MARGINS  # inches text may take
    heading_lines = _lines(heading.split(), inside, " ", FONT_PT)
    handles, words = _legend_entries(g)
    legend_columns = _legend_columns(words, inside)
    legend_rows = -(-len(handles) // legend_columns)
    rows = max((len(col) for col in columns.values()), default=1)
    drawing = ROW_PITCH * (max(rows, 3) - 1 + TOP_ROWS + BOTTOM_ROWS)
    around = LINE_IN * (len(heading_lines) + 1 + legend_rows) + PADDING
    fig, ax = paper_figure(paper_columns, min(drawing + around, MAX_HEIGHT), layout="constrained")
    # each column centred on the middle row, its first node on top
    pos = {
        n: (x[d], (len(col) - 1) / 2 - i) for d, col in columns.items() for i, n in enumerate(col)
    }
    _draw(ax, g, pos)
    depths = list(columns)
    ax.set_xticks([x[d] for d in depths], [depth_group(d) for d in depths])
    ax.xaxis.set_ticks_position("top")  # the depths head the columns; the legend goes below
    ax.tick_params(axis="x", length=0, pad=2)
    ax.set_yticks([])
    ax.set_xlim(0, max(right, 1.0))  # an exploration without nodes: an empty drawing
    ax.set_ylim(-(rows - 1) / 2 - BOTTOM_ROWS, (rows - 1) / 2 + TOP_ROWS)
    for side in ax.spines.values():
        side.set_visible(False)
    # title and legend belong to the figure: wider than the drawing, they take height only
    fig.suptitle("\n".join(heading_lines), fontsize=FONT_PT)
    legend = fig.legend(
        handles,
        words,
        loc="outside lower center",
        ncols=legend_columns,
        frameon=False,
        handletextpad=HANDLE_PAD_EMS,
        handlelength=HANDLE_EMS,
        columnspacing=COLUMN_SPACING_EMS,
    )
    fig.canvas.draw()
    fig.set_layout_engine("none")  # final: names are placed in canvas pixels
    _name_nodes(ax, g, pos, labels, names, legend)
    return fig


def _name_nodes(
    ax: plt.Axes,
    g: dict[str, Any],
    pos: dict[str, Any],
    labels: dict[str, str],
    names: dict[str, str],
    legend: Any,
) -> None:
    """Each node's name beside it, seeds and kept nodes first (they get the nearest places);
    names that fit nowhere are numbered, the key (names less shortened) under ``legend`` as
    wide as the figure."""
    order = sorted(pos, key=lambda n: (n in g["pruned"], g["depth"][n]))
    colours = [PRUNED_NAME_COLOUR if n in g["pruned"] else "#222222" for n in order]
    key = place_labels(ax, [pos[n] for n in order], [labels[n] for n in order], colours)
    longer = {}  # drawn name -> the key's (the first node of that drawn name)
    for n in reversed(order):
        longer[labels[n]] = _plain(names[n], KEY_NAME_CHARS)
    key = [f"{number} {longer[label]}" for number, label in (e.split(" ", 1) for e in key)]
    for text in ax.texts:  # readable where an edge runs under a name
        text.set_bbox({"facecolor": "white", "edgecolor": "none", "alpha": 0.75, "pad": 0.2})
    if key:
        width = ax.figure.get_size_inches()[0] - 2 * SIDE_MARGINS
        key_under(ax, _lines(key, width, " · "), legend, fontsize=MIN_FONT_PT)


def _lines(entries: list[str], width: float, sep: str, size: float = MIN_FONT_PT) -> list[str]:
    """``entries`` (words, key entries) joined by ``sep`` into lines at most ``width`` inches
    wide at ``size`` points (an entry is never split)."""
    lines: list[str] = []
    for entry in entries:
        joined = f"{lines[-1]}{sep}{entry}" if lines else entry
        if lines and _width_in(joined, size) <= width:
            lines[-1] = joined
        else:
            lines.append(entry)
    return lines


def save_exploration(
    trace: Trace, name: str, figures_dir: Path | str, graph: Any = None, title: str = ""
) -> list[Path]:
    """Write the exploration as ``name.html`` (pyvis) and ``name.png`` (this figure)."""
    view = exploration_view(trace, graph, title=title or "MOSAIC exploration")
    fig = exploration_figure(trace, graph, title)
    return save_view_and_figure(view, fig, name, figures_dir)
