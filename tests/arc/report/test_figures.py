"""ace_lab.arc.report.figures: the static drawings of notebook 04's interface and witness read
in a paper (``ace_lab.viz.text_layout.layout_problems``) on graphs the size of a real answer's
— the committed pictures come from an answer notebook 04 replays, so they are checked here."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from ace_lab.arc.report.figures import SINGLE_COLUMN_NODES, graph_figure
from ace_lab.arc.report.views import INTERFACE_COLOURS, interface_graph
from ace_lab.arc.steps import ArcAnchor, InterfaceBuilt
from ace_lab.viz.sizes import DOUBLE_COLUMN, SINGLE_COLUMN
from ace_lab.viz.text_layout import layout_problems

CARS = [f"McLaren MP4/{i} Formula One racing car of the {1980 + i} season" for i in range(1, 9)]
PEOPLE = ["Mika Häkkinen", "David Coulthard", "Ayrton Senna da Silva", "Alain Prost"]
SEASONS = [f"{1990 + i} FIA Formula One World Championship season" for i in range(6)]
QUESTION = "McLaren MP4/11 was driven by what Finnish former professional racing driver?"


def interface() -> InterfaceBuilt:
    """About 25 nodes with long names: anchors, entities on confirming paths, an alias group
    and descriptors no path shows (what a replayed ArcRAG answer's interface holds)."""
    anchors = tuple(ArcAnchor(f"k{i}", car, ("Car",), car[:14]) for i, car in enumerate(CARS))
    paths = [f"{car} -[IS_PART_OF]-> {SEASONS[i % 6]}" for i, car in enumerate(CARS)]
    paths += [f"{p} -[PERFORMED]-> {CARS[i]}" for i, p in enumerate(PEOPLE)]
    paths += [f"{SEASONS[i]} -[FOLLOWED_BY]-> {SEASONS[i + 1]}" for i in range(3)]
    return InterfaceBuilt(
        pass_index=1,
        anchors=anchors,
        descriptors=("DIRECTED_BY", "directed_by", "Album", "Person"),
        alias_groups=(("driver", "Driver", "racing driver"),),
        paths=tuple(paths),
    )


@pytest.mark.parametrize("on_path", [0, 3], ids=["interface", "with an answer path"])
def test_a_large_graph_is_two_columns_and_its_text_reads(on_path):
    g = interface_graph(interface())
    assert len(g["nodes"]) >= 25
    path = [f"n:{CARS[0]}", f"n:{PEOPLE[0]}", f"n:{SEASONS[0]}"][:on_path]
    fig = graph_figure(g, INTERFACE_COLOURS, f"ArcRAG interface · typed graph · {QUESTION}", path)
    try:
        assert fig.get_size_inches()[0] == DOUBLE_COLUMN
        assert layout_problems(fig) == []
        names = {t.get_text() for t in fig.axes[0].texts}
        assert "Mika Häkkinen" in names or any("Mika Häkkinen" in n for n in names)
    finally:
        plt.close(fig)


def test_a_small_witness_is_one_column_and_its_text_reads():
    small = InterfaceBuilt(
        pass_index=1,
        anchors=(ArcAnchor("k", CARS[2], ("Car",), "MP4/3"),),
        paths=(
            f"{PEOPLE[0]} -[PERFORMED]-> {CARS[2]}",
            f"{PEOPLE[1]} -[PERFORMED]-> {CARS[2]}",
            f"{PEOPLE[1]} -[TEAMMATE_OF]-> {PEOPLE[0]}",
        ),
    )
    g = interface_graph(small)
    assert len(g["nodes"]) <= SINGLE_COLUMN_NODES
    path = [f"n:{CARS[2]}", f"n:{PEOPLE[0]}"]
    fig = graph_figure(g, {}, "witness · typed graph · answer: Mika Häkkinen", path)
    try:
        assert fig.get_size_inches()[0] == SINGLE_COLUMN
        assert layout_problems(fig) == []
        predicates = {t.get_text() for t in fig.axes[0].texts} & {"PERFORMED", "TEAMMATE_OF"}
        assert predicates  # written where they fit
    finally:
        plt.close(fig)
