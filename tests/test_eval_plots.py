"""ace_lab.eval.plots: the results notebooks' figures, drawn from synthetic tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from ace_lab.eval import ace_tables, plots, tables
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


def test_ablation_plot_marks_controls_and_missing_runs():
    table = ace_tables.ablation_report(synthetic_results(), "ace-full", ["ace-wo-gap"])
    fig = plots.ablation_plot([plots.Panel("toy", "m", table)])
    (ax,) = fig.axes
    assert _labels(ax) == list(table["method"])
    assert [t.get_text() for t in ax.texts] == ["missing"]  # ace-wo-gap has no run
    assert len(ax.lines) >= 2  # the oracle's diamond and Full-ACE's dashed line
    empty = plots.ablation_plot([], command="ace-lab run --methods ace-full")
    assert "ace-full" in empty.axes[0].texts[0].get_text()


def test_router_figure_shares_and_changes():
    df = synthetic_results()
    dist = {"toy": ace_tables.router_distribution(df)}
    change = {"toy": ace_tables.f1_change_by_topology(df)}
    fig = plots.router_figure(dist, change)
    ax_a, ax_b = fig.axes
    assert len(ax_a.patches) == 4  # one stacked segment per topology
    assert _labels(ax_a) == ["toy"] and ax_a.get_title().startswith("(a)")
    assert ax_b.get_xticklabels()[0].get_text() == "POINT\n(Node)"
    assert [t.get_text() for t in ax_b.texts][-1] == "n=6"  # the pooled bar
    empty = plots.router_figure({}, {}, commands=("make a", "make b"))
    texts = [ax.texts[0].get_text() for ax in empty.axes]
    assert "make a" in texts[0] and "make b" in texts[1]
