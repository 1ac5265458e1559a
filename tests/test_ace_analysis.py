"""ace_lab.ace.analysis: the router's topology counts and per-topology score changes, and
which fixed policy each topology stands for."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ace_lab.ace import analysis


def test_topology_policy_labels_follow_table_12():
    assert analysis.topology_policy_labels() == {
        "POINT": "gap+depth+prune",
        "CONTRAST": "gap+breadth+prune",
        "CHAIN": "gap+depth+breadth",
        "OVERVIEW": "depth+breadth+prune",
    }
    ranked = sorted(["odd", "OVERVIEW", "POINT", "CHAIN"], key=analysis.topology_rank)
    assert ranked == ["POINT", "CHAIN", "OVERVIEW", "odd"]


def test_router_distribution_lists_every_topology_then_other_labels():
    labels = pd.Series(["POINT", "POINT", None, "CHAIN", "weird"])
    dist = analysis.router_distribution(labels).set_index("topology")
    assert list(dist.index) == ["POINT", "CONTRAST", "CHAIN", "OVERVIEW", "(none)", "weird"]
    assert list(dist["count"]) == [2, 0, 1, 0, 1, 1]
    assert dist.loc["POINT", "share"] == pytest.approx(0.4)
    assert dist.loc["OVERVIEW", "name"] == "Subgraph" and dist.loc["weird", "name"] == ""
    # ``total`` counts questions whose label was not recorded at all.
    empty = analysis.router_distribution(pd.Series(dtype=str), total=3)
    assert list(empty["share"]) == [0.0] * 4
    assert math.isnan(analysis.router_distribution(pd.Series(dtype=str)).loc[0, "share"])


def test_f1_change_by_topology_groups_questions_and_pools_them():
    ids = ["a", "b", "c", "d"]
    topology = pd.Series(["CHAIN", "POINT", "CHAIN", None], index=ids)
    adaptive = pd.Series([1.0, 0.0, 0.5, 1.0], index=ids)
    full = pd.Series([0.0, 0.0, 0.5, 0.0], index=ids)
    change = analysis.f1_change_by_topology(topology, adaptive, full, ["a", "b", "c", "d"])
    change = change.set_index("topology")
    assert list(change.index) == ["POINT", "CHAIN", "(none)", "all"]
    assert change.loc["CHAIN", "n"] == 2 and change.loc["CHAIN", "diff"] == pytest.approx(0.5)
    assert change.loc["CHAIN", "F1_adaptive"] == pytest.approx(0.75)
    assert change.loc["all", "n"] == 4 and change.loc["all", "diff"] == pytest.approx(0.5)
    only = analysis.f1_change_by_topology(topology, adaptive, full, ["b"])
    assert list(only["topology"]) == ["POINT", "all"]
    none = analysis.f1_change_by_topology(topology, adaptive, full, [])
    assert list(none["topology"]) == ["all"] and math.isnan(none.loc[0, "diff"])
