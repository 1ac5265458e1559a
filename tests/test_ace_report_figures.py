"""ace_lab.ace.report.figures: ACE's ablation and router figures, drawn from synthetic tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from ace_lab.ace.report import figures, tables
from ace_lab.eval.reporting.plots import Panel
from tests.conftest import synthetic_results


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labels(ax) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def test_ablation_plot_marks_controls_and_missing_runs():
    table = tables.ablation_report(synthetic_results(), "ace-full", ["ace-wo-gap"])
    fig = figures.ablation_plot([Panel("toy", "m", table)])
    (ax,) = fig.axes
    assert _labels(ax) == list(table["method"])
    assert [t.get_text() for t in ax.texts] == ["missing"]  # ace-wo-gap has no run
    assert len(ax.lines) >= 2  # the oracle's diamond and Full-ACE's dashed line
    empty = figures.ablation_plot([], command="ace-lab run --methods ace-full")
    assert "ace-full" in empty.axes[0].texts[0].get_text()


def test_router_figure_shares_and_changes():
    df = synthetic_results()
    dist = {"toy": tables.router_distribution(df)}
    change = {"toy": tables.f1_change_by_topology(df)}
    fig = figures.router_figure(dist, change)
    ax_a, ax_b = fig.axes
    assert len(ax_a.patches) == 4  # one stacked segment per topology
    assert _labels(ax_a) == ["toy"] and ax_a.get_title().startswith("(a)")
    assert ax_b.get_xticklabels()[0].get_text() == "POINT\n(Node)"
    assert [t.get_text() for t in ax_b.texts][-1] == "n=6"  # the pooled bar
    empty = figures.router_figure({}, {}, commands=("make a", "make b"))
    texts = [ax.texts[0].get_text() for ax in empty.axes]
    assert "make a" in texts[0] and "make b" in texts[1]


def test_ablation_plot_places_rows_only_one_study_has():
    df = synthetic_results()
    plain = tables.ablation_report(df, "ace-full", ["ace-wo-gap"])
    extra = df[df["method"] == "ace-full"].assign(method="ace-full:b1500")
    more = tables.ablation_report(pd.concat([df, extra]), "ace-full", ["ace-wo-gap"])
    fig = figures.ablation_plot([Panel("a", "m", plain), Panel("b", "m", more)])
    assert _labels(fig.axes[0]) == [*plain["method"], "ace-full:b1500"]
