"""The readability check: overlapping texts, small texts and over-wide figures are found."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from ace_lab.viz.sizes import paper_figure, paper_style
from ace_lab.viz.text_layout import drawn_texts, layout_problems


def test_a_clean_paper_figure_has_no_problem():
    with paper_style():
        fig, ax = paper_figure(1)
        ax.plot([1, 10, 100], [0, 1, 0], label="series")
        ax.set_title("title")
        ax.legend(loc="upper right")
    assert layout_problems(fig) == []
    plt.close(fig)


def test_overlapping_annotations_are_found_but_texts_side_by_side_are_not():
    fig, ax = paper_figure(2)
    ax.text(0.5, 0.5, "n=0", fontsize=8)
    ax.text(0.505, 0.5, "n=0", fontsize=8)
    ax.text(0.9, 0.1, "alone", fontsize=8)
    problems = layout_problems(fig)
    plt.close(fig)
    assert problems == ["'n=0' overlaps 'n=0'"]


def test_overprinting_tick_labels_small_text_and_wide_figures_are_found():
    fig, ax = plt.subplots(figsize=(11, 3))
    ax.set_xticks([1.0, 1.001], ["first label", "second label"])
    ax.set_title("tiny", fontsize=5)
    problems = layout_problems(fig)
    plt.close(fig)
    assert any("wide" in p for p in problems)
    assert "'tiny' at 5 pt (under 7)" in problems
    assert "'first label' overlaps 'second label'" in problems


def test_only_painted_texts_count():
    fig, ax = paper_figure(1)
    ax.set_xticks([0.5, 5.0], ["shown", "outside the view"])
    ax.set_xlim(0, 1)  # the second tick is now outside the view: not painted
    ax.text(0.5, 0.5, "hidden", visible=False)
    ax.text(0.5, 0.5, "   ")
    shown = [t.get_text() for t, _ in drawn_texts(fig)]
    plt.close(fig)
    assert "shown" in shown and "outside the view" not in shown
    assert "hidden" not in shown and "   " not in shown


def test_a_legend_that_sticks_out_past_two_columns_is_found():
    fig, ax = paper_figure(2, 2.0)
    for i in range(4):
        ax.plot([0, 1], [i, i], label=f"a long legend entry number {i}")
    fig.legend(loc="lower center", bbox_to_anchor=(0.5, -0.3), ncols=4)
    problems = layout_problems(fig)
    plt.close(fig)
    assert any("as saved" in p for p in problems)


def test_a_closed_figure_is_still_checked():
    fig, ax = paper_figure(1)
    ax.text(0.5, 0.5, "n=0")
    ax.text(0.505, 0.5, "n=0")
    plt.close(fig)  # as a report does right after saving
    assert layout_problems(fig) == ["'n=0' overlaps 'n=0'"]
