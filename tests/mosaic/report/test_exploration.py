"""ace_lab.mosaic.report.exploration and exploration_drawing: one query's exploration, from its
trace alone, as a view and as a paper figure (``ace_lab.viz.text_layout.layout_problems``) —
the committed figure comes from an answer notebook 05 replays, so it is checked here on traces
the size of a real one."""

from __future__ import annotations

from itertools import pairwise

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from ace_lab.data import load_slice
from ace_lab.evidence import Trace
from ace_lab.mosaic.report.exploration import (
    CONNECTOR_COLOUR,
    PRUNED_EDGE_COLOUR,
    SEED_GROUP,
    depth_colour,
    exploration_graph,
    exploration_paths,
    exploration_view,
)
from ace_lab.mosaic.report.exploration_drawing import exploration_figure, save_exploration
from ace_lab.mosaic.steps import ScoredPath
from ace_lab.steps import replace
from ace_lab.viz.sizes import DOUBLE_COLUMN, SINGLE_COLUMN
from ace_lab.viz.text_layout import layout_problems
from tests.support.mosaic_synthetic import make_trace, path, two_depth_trace


def _rename_first_kept(trace: Trace, names: tuple[str, ...]) -> None:
    """Give the first kept path of the first depth other display names."""
    step = trace.steps[2]
    first, *rest = step.payload.kept
    step.record(replace(step.payload, kept=(replace(first, names=names), *rest)))


def test_nodes_take_the_first_depth_a_kept_path_reached_them():
    g = exploration_graph(two_depth_trace())
    assert g["depth"] == {"a": 0, "b": 0, "c": 1, "d": 1, "x": 1, "e": 2, "y": 2}
    # c is on a pruned path at depth 1 but also on a kept one: not pale
    assert set(g["pruned"]) == {"x", "y"}
    assert "depth 1" in g["pruned"]["x"] and "depth 2" in g["pruned"]["y"]


def test_a_node_pruned_first_then_kept_deeper_is_coloured_by_the_kept_depth():
    trace = make_trace(
        [
            {"kept": [path(["a", "c"], 0.8)], "pruned": [path(["a", "z"], 0.1)]},
            {"kept": [path(["a", "c", "z"], 0.7)]},
        ]
    )
    g = exploration_graph(trace)
    assert g["depth"]["z"] == 2 and "z" not in g["pruned"]


def test_edge_styles_keep_the_strongest_role_of_each_pair():
    style = exploration_graph(two_depth_trace())["edge_style"]
    assert style[("a", "x")] == "pruned" and style[("c", "y")] == "pruned"
    assert style[("c", "d")] == "connector"  # only on the kept connector path
    assert style[("a", "c")] == "connector"  # standard at depth 1, then on the connector
    assert style[("b", "d")] == "standard" and style[("d", "e")] == "standard"
    assert style[("b", "c")] == "pruned"


def test_view_colours_by_depth_and_styles_connector_and_pruned_edges():
    view = exploration_view(two_depth_trace(), title="q")
    colours = {n["id"]: n["color"]["background"] for n in view.nodes}
    assert colours["a"] == colours["b"] == depth_colour(0)
    assert colours["c"] == depth_colour(1) and colours["e"] == depth_colour(2)
    assert colours["x"] != depth_colour(1)  # pale: only on a pruned path
    edges = {(e["from"], e["to"]): e for e in view.edges}
    assert edges[("c", "d")]["color"]["color"] == CONNECTOR_COLOUR and edges[("c", "d")]["dashes"]
    assert edges[("a", "x")]["color"]["color"] == PRUNED_EDGE_COLOUR
    assert "dashes" not in edges[("d", "e")]
    legend = [e.text for e in view.legend]
    assert legend[0] == SEED_GROUP and any("connector" in t for t in legend)


def test_exploration_paths_lists_every_recorded_path_with_components():
    paths = exploration_paths(two_depth_trace())
    assert len(paths) == 7
    assert (paths["status"] == "kept").sum() == 4
    assert set(paths[paths["view"] == "connector"]["walk"]) == {"name of a → name of c → name of d"}
    assert {"relevance", "hub"} <= set(paths.columns)


def test_corpus_text_never_reaches_the_page_as_markup(tmp_path):
    evil = "<script>alert('x')</script>"
    trace = make_trace([{"kept": [path(["a", "c"], 0.8)]}])
    _rename_first_kept(trace, (evil, "fine & <b>bold</b>"))
    files = save_exploration(trace, "05_exploration", tmp_path)
    html = next(f for f in files if f.suffix == ".html").read_text(encoding="utf-8")
    assert "alert(" in html  # the name is there, as data
    assert evil not in html and "<b>bold" not in html
    png = next(f for f in files if f.suffix == ".png")
    assert png.stat().st_size > 1000


def test_static_figure_draws_one_marker_per_node_and_survives_dollar_signs():
    trace = two_depth_trace()
    _rename_first_kept(trace, ("$5 note", "cost $x$"))
    fig = exploration_figure(trace)
    try:
        fig.canvas.draw()  # mathtext would raise on unbalanced or odd $ text
        ax = fig.axes[0]
        assert len(ax.collections) == 7  # a scatter per node
        assert [t.get_text() for t in ax.get_xticklabels()] == [SEED_GROUP, "depth 1", "depth 2"]
    finally:
        plt.close(fig)


def test_a_pair_walked_both_ways_is_drawn_once_in_its_strongest_kind():
    trace = make_trace(
        [
            {"kept": [path(["a", "c", "b"], 0.8, "connector")]},
            {"kept": [path(["b", "c"], 0.6)], "pruned": [path(["b", "c", "a"], 0.1)]},
        ]
    )
    assert {("a", "c"), ("c", "a")} <= set(exploration_graph(trace)["edge_style"])
    fig = exploration_figure(trace)
    try:
        edges = fig.axes[0].patches
        assert len(edges) == 2  # a-c and c-b, each once
        assert {e.get_linestyle() for e in edges} == {"dashed"}  # both connector, none dotted
    finally:
        plt.close(fig)


def test_an_exploration_that_never_grew_is_still_drawn():
    trace = make_trace([{"kept": [], "pruned": []}], reason="exhausted")
    g = exploration_graph(trace)
    assert set(g["depth"]) == {"a", "b"} and g["edges"].empty
    view = exploration_view(trace)
    assert {n["id"] for n in view.nodes} == {"a", "b"} and not view.edges


def test_a_trace_without_typed_steps_draws_an_empty_exploration():
    trace = Trace()
    with trace.step("traverse:1", kind="traverse"):
        pass  # recorded before steps carried payloads
    assert exploration_paths(trace).empty
    assert not exploration_graph(trace)["depth"]


#: Entity names of the kind the committed answer's graph holds (the slice's first question is
#: about McLaren), several longer than a name drawn beside its node may be.
NAMES = {
    "s1": "McLaren MP4/11",
    "s2": "Mika Häkkinen",
    "s3": "McLaren MP4/10",
    "a": "McLaren Formula One team",
    "b": "Formula One World Champion",
    "c": "1996 Formula One World Championship season",
    "d": "David Coulthard",
    "e": "Williams Grand Prix Engineering",
    "f": "Mercedes-Benz High Performance Engines",
    "g": "Nigel Mansell",
    "h": "Jan Magnussen",
    "i": "Mark Blundell",
    "j": "Finnish former professional racing driver",
    "k": "Keke Rosberg",
    "l": "Ron Dennis",
    "m": "Woking, Surrey, England",
    "n": "TAG Heuer Formula One sponsorship",
    "o": "Adrian Newey",
    "p": "1998 Japanese Grand Prix at Suzuka",
    "q": "West McLaren Mercedes",
}


def named(
    nodes: str, score: float, view: str = "standard", names: dict[str, str] = NAMES
) -> ScoredPath:
    """A path through ``nodes`` (ids of ``names``, space-separated) with those names."""
    ids = nodes.split()
    return ScoredPath(
        nodes=tuple(ids),
        score=score,
        names=tuple(names[n] for n in ids),
        edges=tuple(f"e:{a}-{b}" for a, b in pairwise(ids)),
        region=ids[0],
        view=view,
        components={"relevance": 0.5},
    )


def realistic_trace() -> Trace:
    """Three seeds and three depths, 20 nodes: kept standard and connector paths, the best
    pruned ones of each depth, a seed-to-seed connector."""
    depths = [
        {
            "kept": [
                named("s1 a", 0.8, "connector"),
                named("s2 b", 0.7),
                named("s3 g", 0.69),
                named("s2 s3", 0.6, "connector"),
            ],
            "pruned": [named(p, 0.4) for p in ("s1 d", "s2 e", "s3 h", "s3 i", "s1 f")],
        },
        {
            "kept": [
                named("s1 a c", 0.7),
                named("s2 b j", 0.66, "connector"),
                named("s3 g k", 0.6),
            ],
            "pruned": [named(p, 0.3) for p in ("s1 a l", "s2 b m", "s1 a n")],
        },
        {
            "kept": [named("s1 a c o", 0.6), named("s2 b j p", 0.5)],
            "pruned": [named("s1 a c q", 0.2)],
        },
    ]
    return make_trace(depths, seeds=("s1", "s2", "s3"))


def _reads_at_its_width(fig: plt.Figure, width: float) -> None:
    """``width`` inches wide, as drawn and as saved (nothing sticks out of the paper's
    column: title, legend, key), and ``layout_problems`` finds nothing."""
    assert fig.get_size_inches()[0] == width
    assert layout_problems(fig) == []
    assert fig.get_tightbbox(fig.canvas.get_renderer()).width <= width + 1e-6


def _every_node_is_named(fig: plt.Figure) -> None:
    """Each node's name is drawn, beside its node or in the key (shortened at most to its
    first 12 characters and an ellipsis)."""
    written = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert [n for n in NAMES.values() if n[:12] not in written] == []


def test_an_exploration_of_several_depths_reads_in_a_paper():
    trace = realistic_trace()
    assert len(exploration_graph(trace)["depth"]) == 20
    question = load_slice("hotpotqa_dev_sample200", 20).questions[0].question
    fig = exploration_figure(trace, title=f"MOSAIC exploration: {question}")
    try:
        _reads_at_its_width(fig, DOUBLE_COLUMN)
        _every_node_is_named(fig)
        heads = [t.get_text() for t in fig.axes[0].get_xticklabels()]
        assert heads == [SEED_GROUP, "depth 1", "depth 2", "depth 3"]
        # the legend is under the drawing, not on it
        legend = fig.legends[0].get_window_extent()
        assert legend.y1 <= fig.axes[0].get_window_extent().y0
    finally:
        plt.close(fig)


def test_a_crowded_first_depth_of_short_names_is_one_column_wide_and_reads():
    """The shape of notebook 05's committed answer: five seeds, one depth, its best pruned
    paths listed (eight nodes in one column)."""
    kept = [named("s3 g", 0.7, "connector"), named("s1 a s3", 0.68, "connector")]
    pruned = [named(f"s{1 + i % 2} {n}", 0.5) for i, n in enumerate("bdikloq")]
    trace = make_trace([{"kept": kept, "pruned": pruned}], seeds=("s1", "h", "s2", "g", "s3"))
    column = [n for n, d in exploration_graph(trace)["depth"].items() if d == 1]
    assert len(column) == 8
    fig = exploration_figure(trace, title=f"MOSAIC exploration: {NAMES['j']}?")
    try:
        _reads_at_its_width(fig, SINGLE_COLUMN)
    finally:
        plt.close(fig)


def test_an_exploration_too_wide_for_its_names_shortens_or_numbers_them_and_still_reads():
    """Six depths of long names cannot all stand beside their nodes in two columns."""
    names = {
        f"L{i}": f"Round {i} of the {1990 + i} FIA Formula One World Championship" for i in range(6)
    }
    chain = list(names)
    depths = [{"kept": [named(" ".join(chain[: k + 2]), 0.5, names=names)]} for k in range(5)]
    fig = exploration_figure(make_trace(depths, seeds=("L0",)))
    try:
        _reads_at_its_width(fig, DOUBLE_COLUMN)
        written = " ".join(t.get_text() for t in fig.axes[0].texts)
        assert all(f"Round {i} of" in written for i in range(6))
    finally:
        plt.close(fig)


def test_a_small_exploration_is_one_column_wide_and_its_text_reads():
    fig = exploration_figure(two_depth_trace())
    try:
        _reads_at_its_width(fig, SINGLE_COLUMN)
    finally:
        plt.close(fig)


@pytest.mark.parametrize("trace", [make_trace([{"kept": [], "pruned": []}]), Trace()])
def test_an_empty_exploration_draws_a_readable_figure(trace):
    fig = exploration_figure(trace)
    try:
        assert layout_problems(fig) == []
    finally:
        plt.close(fig)
