"""Label placement: names go beside their points without overprinting, or get numbered."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from ace_lab.viz.label_placement import place_labels
from ace_lab.viz.sizes import paper_figure
from ace_lab.viz.text_layout import layout_problems


def _axes():
    fig, ax = paper_figure(1, 2.5)
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    fig.tight_layout()
    return fig, ax


def test_spread_points_are_named_beside_themselves():
    fig, ax = _axes()
    points = [(2, 2), (5, 5), (8, 8)]
    key = place_labels(ax, points, ["first", "second", "third"])
    assert key == []
    assert [t.get_text() for t in ax.texts] == ["first", "second", "third"]
    assert [t.xy for t in ax.texts] == points  # each name points at its own point
    assert layout_problems(fig) == []
    plt.close(fig)


def test_names_that_cannot_fit_are_numbered_with_a_key():
    fig, ax = _axes()
    points = [(5, 5 + 0.05 * i) for i in range(8)]  # eight points on top of each other
    labels = [f"a rather long method name {i}" for i in range(8)]
    key = place_labels(ax, points, labels)
    assert key and key[0].startswith("1 a rather long method name")
    numbered = [t.get_text() for t in ax.texts if t.get_text().isdigit()]
    assert numbered == [str(i + 1) for i in range(len(key))]
    assert layout_problems(fig) == []
    plt.close(fig)


def test_names_keep_clear_of_the_legend_and_of_points_to_avoid():
    fig, ax = _axes()
    ax.plot([1, 9], [9, 9], label="a line with a long legend entry")
    ax.legend(loc="upper left")
    fig.tight_layout()
    place_labels(ax, [(1.5, 8.6)], ["name"], avoid=[(2.2, 8.7), (2.2, 8.4)])
    legend_box = ax.get_legend().get_window_extent()
    renderer = fig.canvas.get_renderer()
    (note,) = ax.texts
    assert not note.get_window_extent(renderer).overlaps(legend_box)
    plt.close(fig)


def test_labels_that_may_go_unsaid_are_left_out_instead_of_numbered():
    fig, ax = _axes()
    points = [(5, 5 + 0.05 * i) for i in range(8)]
    labels = [f"a rather long edge label {i}" for i in range(8)]
    left_out = place_labels(ax, points, labels, numbered=False)
    drawn = [t.get_text() for t in ax.texts]
    assert left_out and drawn and sorted(drawn + left_out) == sorted(labels)
    assert not any(text.isdigit() for text in drawn)
    assert layout_problems(fig) == []
    plt.close(fig)
