"""Colours: fixed per label / branch / kind / level / pass, stable for everything else."""

from __future__ import annotations

from ace_lab import viz
from ace_lab.evidence import EVIDENCE_KINDS


def test_fixed_colours_cover_every_evidence_kind_and_branch():
    assert set(viz.KIND_COLOURS) == set(EVIDENCE_KINDS)
    assert {"base", "depth", "breadth", "both"} <= set(viz.BRANCH_COLOURS)
    assert viz.label_colour("Entity") == viz.LABEL_COLOURS["Entity"] == viz.level_colour(0)


def test_unknown_labels_get_a_stable_colour_and_ranks_saturate():
    assert viz.label_colour("Person") == viz.label_colour("Person")
    assert (
        viz.pass_colour(99) == viz.PASS_COLOURS[-1] and viz.pass_colour(-1) == viz.PASS_COLOURS[0]
    )
    assert viz.level_colour(9) == viz.LEVEL_COLOURS[-1]
    assert viz.group_colour("depth", viz.BRANCH_COLOURS) == viz.BRANCH_COLOURS["depth"]
    assert viz.group_colour("Chunk") == viz.LABEL_COLOURS["Chunk"]


def test_pale_mixes_with_white():
    assert viz.pale("#000000", 0.5) == "#808080"
    assert viz.pale("#1f77b4", 0.0) == "#1f77b4" and viz.pale("#1f77b4", 1.0) == "#ffffff"


def test_view_colours_never_repeat_within_a_view():
    labels = ["Person", "Location", "Organization", "Song", "Movie", "Album", "Telenovela"]
    colours = viz.view_colours([*labels, "Entity", "Chunk"])
    assert len(set(colours.values())) == len(labels) + 2
    assert colours["Entity"] == viz.LABEL_COLOURS["Entity"]
    assert viz.view_colours(labels) == viz.view_colours(list(reversed(labels)))  # order-free
    assert viz.view_colours(["depth"], viz.BRANCH_COLOURS) == {"depth": viz.BRANCH_COLOURS["depth"]}


def test_method_colours_are_fixed_by_head_and_distinct_within_a_figure():
    from ace_lab.viz.palette import METHOD_COLOURS, SERIES_COLOURS, method_colours

    assert len(set(SERIES_COLOURS)) == len(SERIES_COLOURS) == 20
    eleven = ["naive", "hirag", "hipporag@hierarchical", "ace-adaptive", "mosaic"]
    eleven += ["mosaic:signals", "mosaic-fixed:narrow", "mosaic-fixed:medium"]
    eleven += ["mosaic-fixed:wide", "mosaic-budget-matched:12x2", "mosaic:signals>ace-adaptive"]
    colours = method_colours(eleven)
    assert len(set(colours.values())) == 11
    assert colours["ace-adaptive"] == METHOD_COLOURS["ace-adaptive"]
    assert (
        method_colours(["ace-full", "naive"])["ace-full"]
        == method_colours(["ace-full"])["ace-full"]
    )
    assert method_colours(eleven) == colours  # the same ids, the same colours
