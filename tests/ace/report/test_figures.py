"""ace_lab.ace.report.figures: ACE's ablation and router figures, drawn from synthetic tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from ace_lab.ace.report import figures, tables
from ace_lab.eval.reporting.plots import MISSING, Panel
from ace_lab.viz.names import display_name
from ace_lab.viz.text_layout import layout_problems
from tests.support.records import synthetic_results


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
    assert _labels(ax) == [display_name(m) for m in table["method"]]
    assert _labels(ax)[:2] == ["Full-ACE", "Full-ACE w/o gap"]
    assert [t.get_text() for t in ax.texts] == [MISSING]  # ace-wo-gap has no run
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
    assert _labels(ax_a) == ["Toy corpus"] and ax_a.get_title().startswith("(a)")
    assert ax_b.get_xticklabels()[0].get_text() == "POINT\n(Node)"
    assert "n=6" in [t.get_text() for t in ax_b.texts]  # the pooled bar
    assert ax_b.get_ylabel() == "F1 Adaptive-ACE − Full-ACE"
    assert layout_problems(fig) == []


def test_router_figure_writes_n_once_for_a_topology_no_data_set_has():
    df = synthetic_results()
    change = tables.f1_change_by_topology(df)
    change = change[change["topology"] != "OVERVIEW"]  # no data set has one
    dist = {"a": tables.router_distribution(df), "b": tables.router_distribution(df)}
    fig = figures.router_figure(dist, {"a": change, "b": change, "c": change})
    texts = [t.get_text() for t in fig.axes[1].texts]
    assert texts.count("n=0") == 1  # once for the topology, not once per data set
    assert texts.count("n=6") == 3  # each data set's pooled bar
    assert layout_problems(fig) == []
    empty = figures.router_figure({}, {}, commands=("make a", "make b"))
    texts = [ax.texts[0].get_text() for ax in empty.axes]
    assert "make a" in texts[0] and "make b" in texts[1]


def test_ablation_plot_places_rows_only_one_study_has():
    df = synthetic_results()
    plain = tables.ablation_report(df, "ace-full", ["ace-wo-gap"])
    extra = df[df["method"] == "ace-full"].assign(method="ace-full:b1500")
    more = tables.ablation_report(pd.concat([df, extra]), "ace-full", ["ace-wo-gap"])
    fig = figures.ablation_plot([Panel("a", "m", plain), Panel("b", "m", more)])
    assert _labels(fig.axes[0]) == [*map(display_name, plain["method"]), "Full-ACE (B=1500)"]


def test_shuffled_routers_are_named_after_their_runs_by_display_name():
    df = synthetic_results()
    fewshot = df[df["method"] == "ace-adaptive"].assign(method="ace-adaptive-fewshot")
    runs = ["ace-adaptive", "ace-adaptive-fewshot"]
    table = tables.ablation_report(pd.concat([df, fewshot]), "ace-full", ["ace-wo-gap"], runs)
    assert "shuffled router (ace-adaptive-fewshot)" in set(table["method"])  # ids stay keys
    fig = figures.ablation_plot([Panel("toy", "m", table)], adaptive=runs)
    labels = _labels(fig.axes[0])
    assert "shuffled router of Adaptive-ACE" in labels
    assert "shuffled router of Adaptive-ACE (few-shot)" in labels
    assert not [label for label in labels if "ace-adaptive" in label]
    assert figures.row_name("shuffled router") == "shuffled router"
    assert figures.row_name("oracle best fixed") == "oracle best fixed"
    assert layout_problems(fig) == []
