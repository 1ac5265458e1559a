"""ace_lab.ace.report.tables: ACE's router tables, ablations and router controls on a synthetic
results frame with known answers (``synthetic_results`` in conftest)."""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.ace.report import tables
from tests.support.records import synthetic_results


def test_topology_methods_follow_policy_labels_and_accept_the_ablation_alias():
    assert tables.topology_methods([]) == {
        "POINT": "ace-fixed:gap+depth+prune",
        "CONTRAST": "ace-fixed:gap+breadth+prune",
        "CHAIN": "ace-fixed:gap+depth+breadth",
        "OVERVIEW": "ace-fixed:depth+breadth+prune",
    }
    # Each topology policy is one ablation of Full-ACE: its run serves the control too.
    assert tables.topology_methods(["ace-wo-breadth", "ace-wo-gap"]) == {
        "POINT": "ace-wo-breadth",
        "CONTRAST": "ace-fixed:gap+breadth+prune",
        "CHAIN": "ace-fixed:gap+depth+breadth",
        "OVERVIEW": "ace-wo-gap",
    }


def test_topology_runs_table_and_ablation_methods():
    runs = tables.topology_runs_table().set_index("topology")["runs (either)"]
    assert runs["POINT"] == "ace-wo-breadth or ace-fixed:gap+depth+prune"
    assert list(runs.index) == ["POINT", "CONTRAST", "CHAIN", "OVERVIEW"]
    wanted = tables.ablation_methods("ace-full", ["ace-wo-gap"], "ace-adaptive")
    assert wanted[:3] == ["ace-full", "ace-wo-gap", "ace-adaptive"]
    assert "ace-fixed:gap+depth+breadth" in wanted and "ace-wo-pruning" in wanted


def test_router_tables():
    df = synthetic_results()
    dist = tables.router_distribution(df).set_index("topology")
    assert list(dist.index) == ["POINT", "CONTRAST", "CHAIN", "OVERVIEW"]
    assert list(dist["count"]) == [3, 1, 1, 1] and dist.loc["POINT", "share"] == 0.5
    assert dist.loc["CONTRAST", "name"] == "Edge"

    change = tables.f1_change_by_topology(df).set_index("topology")
    assert change.loc["POINT", "n"] == 3
    assert change.loc["POINT", "diff"] == pytest.approx(0.0)  # [1,1,0] vs [1,1,0]
    assert change.loc["CONTRAST", "diff"] == pytest.approx(1.0)
    assert change.loc["OVERVIEW", "diff"] == pytest.approx(-1.0)
    assert change.loc["all", "n"] == 6 and change.loc["all", "diff"] == pytest.approx(0.0)

    unrecorded = df.drop(columns="topology")  # records without a router label
    dist = tables.router_distribution(unrecorded)
    assert list(dist["count"]) == [0, 0, 0, 0] and list(dist["share"]) == [0.0] * 4
    with pytest.raises(KeyError, match="ace-adaptive"):
        tables.router_distribution(df[df["method"] != "ace-adaptive"])


def test_ablation_with_oracle_and_shuffled_router():
    df = synthetic_results()
    fixed = list(tables.topology_methods([]).values())
    table = tables.ablation_table(df, ["ace-full", "ace-adaptive", "ace-wo-gap"], fixed)
    rows = table.set_index("method")
    assert rows.loc["ace-full", "F1"] == pytest.approx(4 / 6)
    assert rows.loc["ace-wo-gap", "note"] == "missing run" and rows.loc["ace-wo-gap", "n"] == 0
    oracle = rows.loc["oracle best fixed"]
    assert oracle["F1"] == pytest.approx(0.35) and oracle["note"].startswith(fixed[0])
    shuffled = rows.loc["shuffled router"]
    assert shuffled["n"] == 6 and shuffled["F1"] == pytest.approx(0.35)
    assert shuffled["F1_sd"] == pytest.approx(0.0, abs=1e-12)

    # The policy CHAIN maps to is missing: the control is skipped, and says why.
    without = df[df["method"] != tables.topology_methods([])["CHAIN"]]
    skipped = tables.ablation_table(without, ["ace-adaptive"], fixed).set_index("method")
    assert "missing runs: ace-fixed:gap+depth+breadth" in skipped.loc["shuffled router", "note"]
    assert pd.isna(skipped.loc["shuffled router", "F1"])
    assert "missing runs" in skipped.loc["oracle best fixed", "note"]

    # Policies that differ make the shuffled average vary.
    varied = df.copy()
    point = varied["method"] == tables.topology_methods([])["POINT"]
    varied.loc[point, "f1"] = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    shuffled = tables.ablation_table(varied, [], fixed).set_index("method").loc["shuffled router"]
    assert shuffled["F1_sd"] > 0


def test_f1_text_formats_each_kind_of_row():
    row = {"method": "ace-full", "F1": 0.5, "F1_low": 0.25, "F1_high": 0.75, "F1_sd": None}
    assert tables.f1_text(row) == "0.500 [0.250, 0.750]"
    assert tables.f1_text(row | {"F1_low": float("nan")}) == "0.500"
    shuffled = row | {"method": "shuffled router", "F1_sd": 0.1}
    assert tables.f1_text(shuffled) == "0.500 ± 0.100 (sd over permutations)"
    assert tables.f1_text(row | {"F1": float("nan")}) == ""


def test_ablation_report_orders_rows_and_pairs_against_full():
    df = synthetic_results()
    # ace-wo-gap is missing: a row marked missing, with no difference against Full.
    table = tables.ablation_report(df, "ace-full", ["ace-wo-gap"], "ace-adaptive")
    assert list(table["method"]) == [
        "ace-full",
        "ace-wo-gap",
        "oracle best fixed",
        "shuffled router",
        "ace-adaptive",
    ]
    assert set(tables.ABLATION_VIEW) <= set(table.columns)
    rows = table.set_index("method")
    assert rows.loc["ace-full", "F1 [95% CI]"].startswith("0.667 [")
    assert (
        rows.loc["ace-wo-gap", "F1 [95% CI]"] == "" and rows.loc["ace-wo-gap", "ΔF1 vs Full"] == ""
    )
    assert rows.loc["ace-adaptive", "ΔF1 vs Full"].startswith("+0.000 [")
    assert rows.loc["ace-full", "ΔF1 vs Full"] == ""
    assert rows.loc["shuffled router", "F1 [95% CI]"].endswith("(sd over permutations)")
    # The oracle's candidates are Full-ACE and every ace-fixed:* run present.
    assert rows.loc["oracle best fixed", "note"].endswith("(best of 5 in hindsight)")


def test_router_confusion_and_accuracy_from_a_studys_records():
    df = synthetic_results()
    adaptive = df["method"] == "ace-adaptive"
    # labels: POINT POINT CONTRAST CHAIN OVERVIEW POINT
    df.loc[adaptive, "type"] = ["bridge", "comparison", "comparison", "bridge", "2hop", None]
    confusion = tables.router_confusion(df).set_index("type")
    assert confusion.loc["comparison", ["n", "POINT", "CONTRAST", "correct"]].tolist() == [
        2,
        1,
        1,
        1,
    ]
    assert confusion.loc["bridge", ["POINT", "CHAIN", "correct"]].tolist() == [1, 1, 1]
    assert confusion.loc["2hop", ["OVERVIEW", "correct"]].tolist() == [1, 0]
    accuracy = tables.router_accuracy(df).iloc[0]
    assert (accuracy["method"], accuracy["n"], accuracy["correct"]) == ("ace-adaptive", 5, 2)
    assert accuracy["accuracy"] == pytest.approx(0.4) and accuracy["classes"] == 4
    assert accuracy["accuracy_low"] <= 0.4 <= accuracy["accuracy_high"]
    assert accuracy["accuracy [95% CI]"].startswith("0.400 [")
    with pytest.raises(KeyError):
        tables.router_accuracy(df, ["ace-missing"])


def _two_routers() -> pd.DataFrame:
    """The synthetic study with a second Adaptive-ACE run whose router labels differ."""
    df = synthetic_results()
    second = df[df["method"] == "ace-adaptive"].assign(method="ace-adaptive-fewshot")
    second["topology"] = ["CHAIN"] * len(second)
    return pd.concat([df, second], ignore_index=True)


def test_several_routers_each_get_their_own_shuffled_control():
    df = _two_routers()
    adaptives = ["ace-adaptive", "ace-adaptive-fewshot"]
    wanted = tables.ablation_methods("ace-full", ["ace-wo-gap"], adaptives)
    assert wanted[:4] == ["ace-full", "ace-wo-gap", *adaptives] and len(set(wanted)) == len(wanted)
    table = tables.ablation_report(df, "ace-full", ["ace-wo-gap"], adaptives)
    assert list(table["method"]) == [
        "ace-full",
        "ace-wo-gap",
        "oracle best fixed",
        "shuffled router (ace-adaptive)",
        "ace-adaptive",
        "shuffled router (ace-adaptive-fewshot)",
        "ace-adaptive-fewshot",
    ]
    rows = table.set_index("method")
    assert "of ace-adaptive's topologies" in rows.loc["shuffled router (ace-adaptive)", "note"]
    # One label for every question: permuting it changes nothing, so the spread is zero.
    fewshot = rows.loc["shuffled router (ace-adaptive-fewshot)"]
    assert "ace-adaptive-fewshot's topologies" in fewshot["note"] and fewshot[
        "F1_sd"
    ] == pytest.approx(0.0)
    assert rows.loc["ace-adaptive-fewshot", "ΔF1 vs Full"] != ""


def test_router_confusions_stack_one_block_per_router():
    df = _two_routers()
    df["type"] = df["type"].fillna("bridge") if "type" in df else "bridge"
    stacked = tables.router_confusions(df, ["ace-adaptive", "ace-adaptive-fewshot"])
    assert list(stacked.columns[:2]) == ["method", "type"]
    fewshot = stacked[stacked["method"] == "ace-adaptive-fewshot"]
    assert fewshot["CHAIN"].sum() == fewshot["n"].sum() and fewshot["POINT"].sum() == 0
    assert tables.router_confusions(df, []).columns.tolist() == ["method"]


def _with_runs(df: pd.DataFrame, copies: dict[str, str]) -> pd.DataFrame:
    """``df`` plus runs named by ``copies``' keys, each a copy of the run of its value."""
    added = [df[df["method"] == src].assign(method=name) for name, src in copies.items()]
    return pd.concat([df, *added], ignore_index=True)


def test_split_ablations_and_shared_budget_runs_get_rows_only_when_recorded():
    df = synthetic_results()
    plain = tables.ablation_report(df, "ace-full", ["ace-wo-gap"], "ace-adaptive")
    assert "budget" not in plain and tables.ablation_view(plain) == tables.ABLATION_VIEW
    more = _with_runs(
        df,
        {
            "ace-wo-report-drop": "ace-full",
            "ace-full:b1500": "hirag",
            "ace-wo-report-drop:b1500": "hirag",
            "ace-adaptive:b1500": "ace-adaptive",
        },
    )
    table = tables.ablation_report(more, "ace-full", ["ace-wo-gap"], "ace-adaptive")
    assert list(table["method"]) == [
        "ace-full",
        "ace-wo-gap",
        "ace-wo-report-drop",
        "ace-full:b1500",
        "ace-wo-report-drop:b1500",
        "oracle best fixed",
        "shuffled router",
        "ace-adaptive",
        "ace-adaptive:b1500",
    ]
    rows = table.set_index("method")
    assert tables.ablation_view(table)[:2] == ["method", "budget"]
    assert rows.loc["ace-full", "budget"] == 2400 and rows.loc["ace-full:b1500", "budget"] == 1500
    assert pd.isna(rows.loc["oracle best fixed", "budget"])
    # Full-ACE at 1,500 is paired against Full-ACE; the other 1,500 runs against it
    assert rows.loc["ace-full:b1500", "ΔF1 vs Full"].startswith("-0.333 [")
    assert rows.loc["ace-wo-report-drop:b1500", "ΔF1 vs Full"].startswith("+0.000 [")
    assert rows.loc["ace-wo-report-drop", "ΔF1 vs Full"].startswith("+0.000 [")
    assert rows.loc["ace-adaptive:b1500", "ΔF1 vs Full"].startswith("+0.333 [")
    # the oracle chooses among runs at Full-ACE's budget only (as before: 5 candidates + 1)
    assert rows.loc["oracle best fixed", "note"].endswith("(best of 6 in hindsight)")
