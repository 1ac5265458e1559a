"""ace_lab.eval.reporting.plots: the generic forest figures, drawn from synthetic tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from ace_lab.eval.reporting import plots, tables
from ace_lab.viz.sizes import DOUBLE_COLUMN
from ace_lab.viz.text_layout import layout_problems
from tests.support.records import synthetic_results


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labels(ax) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def test_forest_plot_one_panel_per_data_set():
    table = tables.main_table(synthetic_results(), ["hirag", "ace-full"])
    panel = plots.Panel("hotpotqa_dev_sample200", "qwen", table)
    assert panel.title == "HotpotQA\n(n = 6, qwen)"
    methods = ["naive", "hirag", "ace-full"]
    fig = plots.forest_plot([panel, panel._replace(label="2wikimultihopqa_hipporag1000")], methods)
    first, second = fig.axes
    assert first.get_title() == "HotpotQA\n(n = 6, qwen)" and second.get_title().startswith("2Wiki")
    assert _labels(first) == ["NaiveRAG", "HiRAG", "Full-ACE"] and first.get_xlim() == (0.0, 1.0)
    assert first.yaxis_inverted()  # methods read top to bottom
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["EM", "F1"]
    assert len(first.containers) == 2  # one error bar series per metric
    # naive has no run: its row says so rather than staying blank (a blank reads as zero)
    assert [(t.get_text(), t.get_position()[1]) for t in first.texts] == [(plots.MISSING, 0)]
    assert fig.get_size_inches()[0] == DOUBLE_COLUMN
    assert layout_problems(fig) == []


def test_forest_plot_without_data_says_how_to_make_it():
    fig = plots.forest_plot([], ["hirag"], command="ace-lab run --methods hirag")
    (ax,) = fig.axes
    assert "ace-lab run --methods hirag" in ax.texts[0].get_text()
