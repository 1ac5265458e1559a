"""ace_lab.eval.reporting.plots: the generic forest figures, drawn from synthetic tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from ace_lab.eval.reporting import plots, tables
from tests.conftest import synthetic_results


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labels(ax) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def test_forest_plot_one_panel_per_data_set():
    table = tables.main_table(synthetic_results(), ["hirag", "ace-full"])
    panel = plots.Panel("HotpotQA", "qwen", table)
    assert panel.title == "HotpotQA (n = 6, qwen)"
    methods = ["naive", "hirag", "ace-full"]
    fig = plots.forest_plot([panel, panel._replace(label="2Wiki")], methods)
    first, second = fig.axes
    assert first.get_title() == "HotpotQA (n = 6, qwen)" and second.get_title().startswith("2Wiki")
    assert _labels(first) == methods and first.get_xlim() == (0.0, 1.0)
    assert first.yaxis_inverted()  # methods read top to bottom
    assert [t.get_text() for t in second.get_legend().get_texts()] == ["EM", "F1"]
    assert len(first.containers) == 2  # one error bar series per metric


def test_forest_plot_without_data_says_how_to_make_it():
    fig = plots.forest_plot([], ["hirag"], command="ace-lab run --methods hirag")
    (ax,) = fig.axes
    assert "ace-lab run --methods hirag" in ax.texts[0].get_text()
