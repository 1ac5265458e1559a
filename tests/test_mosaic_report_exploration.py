"""ace_lab.mosaic.report.exploration: one query's exploration, from its trace alone."""

from __future__ import annotations

import matplotlib.pyplot as plt

from ace_lab.evidence import Trace
from ace_lab.mosaic.report.exploration import (
    CONNECTOR_COLOUR,
    PRUNED_EDGE_COLOUR,
    SEED_GROUP,
    depth_colour,
    exploration_figure,
    exploration_graph,
    exploration_paths,
    exploration_view,
    save_exploration,
)
from ace_lab.steps import replace
from tests.mosaic_synthetic import make_trace, path, two_depth_trace


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
