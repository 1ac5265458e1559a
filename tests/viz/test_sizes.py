"""Paper figure sizes: one or two columns wide, tick labels at the smallest paper size."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from ace_lab.viz.sizes import DOUBLE_COLUMN, MIN_FONT_PT, SINGLE_COLUMN, paper_figure, paper_style


def test_paper_figure_is_one_or_two_columns_wide():
    one, _ = paper_figure(1)
    two, axes = paper_figure(2, 2.0, ncols=3)
    assert one.get_size_inches()[0] == SINGLE_COLUMN
    assert tuple(two.get_size_inches()) == (DOUBLE_COLUMN, 2.0) and len(axes) == 3
    plt.close("all")
    with pytest.raises(ValueError, match="1 or 2 columns"):
        paper_figure(3)


def test_tick_labels_keep_the_paper_size_when_drawn_outside_the_style():
    fig, ax = paper_figure(1)
    ax.plot([0, 1], [0, 1])
    fig.canvas.draw()  # ticks are made here, after paper_figure's rc_context is gone
    sizes = {t.get_fontsize() for t in ax.get_xticklabels() + ax.get_yticklabels()}
    plt.close(fig)
    assert sizes == {MIN_FONT_PT}


def test_paper_style_sets_titles_and_legends_while_a_figure_is_built():
    with paper_style():
        fig, ax = paper_figure(1)
        ax.plot([0, 1], [0, 1], label="line")
        title = ax.set_title("title")
        legend = ax.legend()
    plt.close(fig)
    assert title.get_fontsize() == 8 and legend.get_texts()[0].get_fontsize() == MIN_FONT_PT
