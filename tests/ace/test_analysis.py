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


# ----------------------------------------------------------------- router vs question types
@pytest.mark.parametrize(
    ("qtype", "proxy"),
    [
        ("bridge", "CHAIN"),  # HotpotQA
        ("comparison", "CONTRAST"),  # HotpotQA and 2Wiki
        ("compositional", "CHAIN"),  # 2Wiki
        ("inference", "CHAIN"),
        ("bridge_comparison", "CONTRAST"),
        ("2hop", "CHAIN"),  # MuSiQue hop counts
        ("3hop1", "CHAIN"),
        ("4hop3", "CHAIN"),
        ("1hop", None),
        ("hop", None),
        ("Fact Retrieval", None),
        (None, None),
        (float("nan"), None),
    ],
)
def test_proxy_topology_maps_question_types(qtype, proxy):
    assert analysis.proxy_topology(qtype) == proxy


def test_router_confusion_counts_labels_per_type_in_the_papers_order():
    ids = list("abcdefg")
    types = pd.Series(["bridge", "comparison", "bridge", "2hop", "3hop1", None, "odd"], index=ids)
    labels = pd.Series(["CHAIN", "CONTRAST", "CONTRAST", "CHAIN", None, "POINT", "CHAIN"], ids)
    table = analysis.router_confusion(types, labels)
    assert list(table.columns) == [
        "type",
        "proxy",
        "n",
        "POINT",
        "CONTRAST",
        "CHAIN",
        "OVERVIEW",
        "(none)",
        "correct",
    ]
    assert list(table["type"]) == ["comparison", "2hop", "3hop1", "bridge", "(none)", "odd"]
    rows = table.set_index("type")
    assert rows.loc["bridge", ["n", "CONTRAST", "CHAIN", "correct"]].tolist() == [2, 1, 1, 1]
    assert rows.loc["3hop1", "(none)"] == 1 and rows.loc["3hop1", "correct"] == 0
    assert rows.loc["odd", "proxy"] == "" and rows.loc["odd", "correct"] == 0
    assert int(table[["POINT", "CONTRAST", "CHAIN", "OVERVIEW", "(none)"]].to_numpy().sum()) == 7


def test_router_accuracy_scores_only_types_with_a_proxy():
    types = pd.Series(["bridge", "comparison", "bridge", "odd"])
    labels = pd.Series(["CHAIN", "CHAIN", "CHAIN", "POINT"])
    assert analysis.router_accuracy(types, labels) == {
        "n": 3,
        "correct": 2,
        "accuracy": pytest.approx(2 / 3),
        "classes": 1,  # one class: the router does not discriminate
    }
    assert list(analysis.router_hits(types, labels)) == [1.0, 0.0, 1.0]
    empty = analysis.router_accuracy(pd.Series(["odd"]), pd.Series(["CHAIN"]))
    assert empty["n"] == 0 and math.isnan(empty["accuracy"])
