"""The Pareto front of accuracy against input tokens, and its single-column figure."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from ace_lab.viz.pareto import COLUMN_SIZE, pareto_front, plot_pareto
from ace_lab.viz.text_layout import layout_problems


def test_front_keeps_only_undominated_points_cheapest_first():
    accuracy = [0.5, 0.4, 0.6, 0.3, 0.6]
    tokens = [1000, 500, 3000, 800, 4000]
    # 0.3 @ 800 is beaten by 0.4 @ 500; 0.6 @ 4000 by 0.6 @ 3000
    assert pareto_front(accuracy, tokens) == [1, 0, 2]


def test_exact_ties_keep_one_point():
    assert pareto_front([0.5, 0.5], [100, 100]) == [0]


def test_figure_is_single_column_with_the_front_named():
    points = pd.DataFrame(
        {"method": ["a", "b", "c"], "accuracy": [0.5, 0.4, 0.2], "tokens": [900, 400, 800]}
    )
    chooser = pd.DataFrame({"accuracy": [0.45, 0.5], "tokens": [500, 900]})
    fig = plot_pareto(points, title="t", metric="F1", chooser=chooser, oracle=(0.7, 600))
    ax = fig.axes[0]
    assert tuple(fig.get_size_inches()) == COLUMN_SIZE
    assert sorted(t.get_text() for t in ax.texts) == ["a", "b"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["auto (CV over λ)", "oracle"]
    assert layout_problems(fig) == []
    plt.close(fig)


def test_crowded_names_never_overprint_and_names_are_display_names():
    # ten front points a few tokens apart: not every name fits beside its point
    methods = ["naive", "hirag", "lightrag", "hipporag", "graphrag", "ace-full", "ace-adaptive",
               "mosaic", "arcrag", "direct-cypher"]  # fmt: skip
    points = pd.DataFrame(
        {
            "method": methods,
            "accuracy": [0.1 + 0.01 * i for i in range(10)],
            "tokens": [1000 + 20 * i for i in range(10)],
        }
    )
    fig = plot_pareto(points, title="t", metric="F1")
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "NaiveRAG" in texts and "Full-ACE" in texts and "ace-full" not in texts
    assert layout_problems(fig) == []
    plt.close(fig)


def test_a_composed_method_is_named_and_marked_off_the_front():
    points = pd.DataFrame(
        {
            "method": ["naive", "hirag", "hirag>ace-full"],
            "accuracy": [0.5, 0.4, 0.3],
            "tokens": [900, 400, 950],
        }
    )
    fig = plot_pareto(points, title="t", metric="F1")
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.texts) == ["HiRAG", "HiRAG → Full-ACE", "NaiveRAG"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["composed"]
    plt.close(fig)
