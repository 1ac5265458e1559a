"""ace_lab.eval.graphragbench.plots: grouped bars of one GraphRAG-Bench metric, drawn from a
hand-made grb_table."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.container import BarContainer

from ace_lab.eval.graphragbench.plots import grb_figure
from ace_lab.eval.graphragbench.scoring import OVERALL
from ace_lab.viz.palette import METHOD_COLOURS
from ace_lab.viz.text_layout import layout_problems


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _row(method, metric, kind, n, mean, low, high):
    return {
        "method": method,
        "metric": metric,
        "type": kind,
        "n": n,
        "mean": mean,
        "low": low,
        "high": high,
        "judge_model": "qwen1.5b",
        "embed_model": "minilm",
    }


TABLE = pd.DataFrame(
    [
        _row("mosaic", "answer_correctness", OVERALL, 4, 0.55, 0.4, 0.7),
        _row("mosaic", "answer_correctness", "Fact Retrieval", 3, 0.6, 0.5, 0.7),
        _row("mosaic", "answer_correctness", "Contextual Summarize", 1, 0.4, 0.4, 0.4),
        _row("naive", "answer_correctness", "Fact Retrieval", 3, 0.3, 0.1, 0.5),
        _row("naive", "answer_correctness", OVERALL, 3, 0.3, 0.1, 0.5),
        _row("naive", "evidence_recall", OVERALL, 3, 0.9, 0.8, 1.0),
    ]
)


def test_bars_are_the_means_grouped_by_type_in_the_benchmarks_order():
    fig = grb_figure(TABLE, methods=["naive", "mosaic"], title="graphragbench_medical")
    ax = fig.axes[0]
    # each type's n under its name (a range where the methods' n differ)
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "Fact Retrieval\nn = 3",
        "Contextual Summarize\nn = 1",
        "Overall (query-\nweighted, not official)\nn = 3–4",
    ]
    naive, mosaic = [c for c in ax.containers if isinstance(c, BarContainer)]
    heights = [[b.get_height() for b in group] for group in (naive, mosaic)]
    assert heights[0][0] == pytest.approx(0.3) and heights[0][2] == pytest.approx(0.3)
    assert pd.isna(heights[0][1])  # naive has no Contextual Summarize score: no bar
    assert heights[1] == pytest.approx([0.6, 0.4, 0.55])
    # the judge and embedder are in the title, the data set by its display name
    assert "judge qwen1.5b" in ax.get_title() and "minilm" in ax.get_title()
    assert ax.get_title().startswith("GraphRAG-Bench Medical · Answer Correctness")
    (legend,) = fig.legends  # below the axes, display names, each method its own colour
    assert [t.get_text() for t in legend.get_texts()] == ["NaiveRAG", "MOSAIC"]
    assert naive.patches[0].get_facecolor()[:3] == pytest.approx(
        tuple(int(METHOD_COLOURS["naive"][i : i + 2], 16) / 255 for i in (1, 3, 5))
    )
    assert layout_problems(fig) == []


def test_eleven_methods_get_eleven_colours_and_nothing_overprints():
    methods = [f"mosaic-fixed:w{i}" for i in range(11)]
    rows = [
        _row(m, "answer_correctness", t, 11, 0.5, 0.4, 0.6)
        for m in methods
        for t in ("Fact Retrieval", "Complex Reasoning", OVERALL)
    ]
    fig = grb_figure(pd.DataFrame(rows), methods=methods)
    bars = [c for c in fig.axes[0].containers if isinstance(c, BarContainer)]
    assert len({tuple(c.patches[0].get_facecolor()) for c in bars}) == 11
    assert layout_problems(fig) == []


def test_error_bars_span_the_interval():
    ax = grb_figure(TABLE, "evidence_recall").axes[0]
    (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert [b.get_height() for b in bars] == pytest.approx([0.9])
    segments = ax.collections[0].get_segments()
    assert [tuple(s[:, 1]) for s in segments] == [pytest.approx((0.8, 1.0))]


def test_no_scores_draw_a_placeholder_with_the_command():
    ax = grb_figure(pd.DataFrame(), command="ace-lab grb-score --study x").axes[0]
    assert "ace-lab grb-score --study x" in ax.texts[0].get_text()
    ax = grb_figure(TABLE, "coverage_score").axes[0]
    assert "no Coverage scores" in ax.texts[0].get_text()
