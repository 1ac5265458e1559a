"""ace_lab.mosaic.report.policies: the policies MOSAIC assigned, side by side (hand-made traces) and
over a slice (hand-made records)"""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.evidence import Trace
from ace_lab.mosaic.policy import FIXED_POLICIES, ExplorationPolicy
from ace_lab.mosaic.report.policies import (
    POLICY_FIELDS,
    budget_matched_name,
    connector_activation,
    policy_combinations,
    policy_distribution,
    policy_diversity,
    policy_frame,
    policy_side_by_side,
    policy_summary,
    with_budget_matched,
)
from ace_lab.mosaic.report.steps import BEFORE_TYPED_STEPS, payload
from ace_lab.mosaic.steps import ExplorationChoice
from ace_lab.registry import spec
from tests.support.mosaic_synthetic import make_trace, record, slice_records

SIGNALS = {
    "deep list": {
        "cardinality": "list",
        "targets": [],
        "depth": 9,
        "anchoring": "vague",
        "breadth": "broad",
        "mediated": True,
    },
    "comparison": {"targets": ["A", "B", "C"], "comparison": True, "depth": 2},
    "direct": {"depth": 2},
}


def test_side_by_side_shows_raw_to_validated_exactly_where_validation_changed_a_control():
    traces = {label: make_trace([], signals=s) for label, s in SIGNALS.items()}
    table = policy_side_by_side(traces)
    assert list(table.columns) == list(SIGNALS)
    for label, trace in traces.items():
        choice = payload(trace, ExplorationChoice)
        adjusted = {a.split(":")[0] for a in choice.adjustments}
        arrows = {f for f in POLICY_FIELDS if "→" in table.loc[("policy", f), label]}
        assert arrows == adjusted, label
        for f in POLICY_FIELDS:  # the validated value always ends the cell
            used = str(choice.policy[f]).strip("[]()").replace("'", "").rstrip(",") or "—"
            assert table.loc[("policy", f), label].endswith(used)
    # depth 9 + mediated is clamped to the depth cap 4
    assert table.loc[("policy", "max_depth"), "deep list"] == "9 → 4"
    assert table.loc[("analyzer JSON", "cardinality"), "deep list"] == "list"
    assert table.loc[("validation", "adjustments"), "direct"] == "none"


def test_side_by_side_marks_the_default_policy_of_unusable_output():
    bad = make_trace([], signals="not an object")
    table = policy_side_by_side({"bad": bad, "ok": make_trace([], signals={"depth": 3})})
    assert table.loc[("validation", "default policy (fallback)"), "bad"] == "True"
    assert table.loc[("policy", "max_depth"), "bad"] == str(ExplorationPolicy().max_depth)
    assert table.loc[("analyzer JSON", "depth"), "bad"] == "—"


def test_distribution_counts_every_question_once_per_control():
    records = slice_records()
    dist = policy_distribution(records)
    for control, group in dist.groupby("control"):
        assert group["questions"].sum() == 40, control
        assert abs(group["share"].sum() - 1) < 0.01
    depth = dist[dist["control"] == "max_depth"]
    assert list(depth["value"]) == sorted(depth["value"], key=int)
    summary = policy_summary(records)
    assert summary.loc["max_depth", "distinct"] == len(depth)
    total = sum(
        int(part.split(": ")[1]) for part in summary.loc["seed_count", "values"].split(" · ")
    )
    assert total == 40


def test_combinations_ignore_target_strings_and_count_distinct_controls():
    records = slice_records()
    frame = policy_frame(records)
    combos = policy_combinations(records)
    assert combos["questions"].sum() == len(frame) == 40
    assert len(combos) == frame["combination"].nunique()
    one = FIXED_POLICIES["medium"].to_dict()
    same = [
        record("mosaic", "a", policy=one | {"targets": ["P"], "per_target": False}),
        record("mosaic", "b", policy=one | {"targets": ["Q", "R"], "per_target": False}),
    ]
    assert len(policy_combinations(same)) == 1


def test_diversity_counts_combinations_per_slice_with_n_and_spans():
    records = slice_records()
    medium = FIXED_POLICIES["medium"].to_dict()
    one = [record("mosaic", q, policy=medium) for q in ("a", "b")]
    table = policy_diversity({"random": records, "one": one, "none": []}).set_index("slice")
    assert list(table.index) == ["random", "one"]  # a slice without policies has no row
    assert table.loc["random", "n"] == 40
    assert table.loc["random", "combinations"] == len(policy_combinations(records))
    assert table.loc["random", "max_depth"] == "2-4" and table.loc["one", "max_depth"] == "3"
    assert (table.loc["one", "combinations"], table.loc["one", "top_share"]) == (1, 1.0)
    assert set(table["method"]) == {"mosaic"}


def test_diversity_has_a_row_per_analyzer_the_slice_ran():
    medium, wide = FIXED_POLICIES["medium"].to_dict(), FIXED_POLICIES["wide"].to_dict()
    records = [record("mosaic", q, policy=medium) for q in ("a", "b")]
    records += [record("mosaic:signals", q, policy=p) for q, p in (("a", medium), ("b", wide))]
    table = policy_diversity({"s": records}).set_index("method")
    assert list(table.index) == ["mosaic", "mosaic:signals"]
    assert table.loc["mosaic", "combinations"] == 1
    assert table.loc["mosaic:signals", "combinations"] == 2


def test_connector_activation_per_question_type():
    records = slice_records()
    table = connector_activation(records)
    frame = policy_frame(records)
    for qtype, group in frame.groupby("type"):
        assert table.loc[qtype, "questions"] == len(group)
        assert table.loc[qtype, "policy_on"] == pytest.approx(group["connectors"].mean(), abs=1e-3)
    assert table.loc["all", "questions"] == 40
    assert (table["used"] <= table["policy_on"]).all()  # a connector is only used when on


def test_budget_matched_takes_the_mean_assigned_budget_and_depth_rounded_half_up():
    medium = FIXED_POLICIES["medium"].to_dict()
    records = [
        record("mosaic", "a", policy=medium | {"evidence_budget": 8, "max_depth": 2}),
        record("mosaic", "b", policy=medium | {"evidence_budget": 13, "max_depth": 3}),
        record(
            "mosaic", "c", policy=medium | {"evidence_budget": 10, "max_depth": 3}, depth_reached=1
        ),  # what a run reached does not count
        record("mosaic-fixed:wide", "a", policy=FIXED_POLICIES["wide"].to_dict()),
    ]
    name = budget_matched_name(records)  # budget (8+13+10)/3 = 10.33, depth 8/3 = 2.67
    assert name == "mosaic-budget-matched:10x3"
    policy = spec(name).config(ExplorationPolicy)
    assert (policy.evidence_budget, policy.max_depth) == (10, 3)
    assert budget_matched_name(records[:2]) == "mosaic-budget-matched:11x3"  # 10.5 -> 11
    with pytest.raises(ValueError, match="run mosaic on the slice first"):
        budget_matched_name(records[3:])


def test_a_bare_budget_matched_name_becomes_the_slice_control():
    medium = FIXED_POLICIES["medium"].to_dict()
    records = [
        record("mosaic", "a", policy=medium | {"evidence_budget": 12, "max_depth": 2}),
        record("mosaic", "b", policy=medium | {"evidence_budget": 13, "max_depth": 2}),
    ]
    names = ["naive", "mosaic", "mosaic-budget-matched", "mosaic-budget-matched:13x2"]
    assert with_budget_matched(names, records) == ["naive", "mosaic", "mosaic-budget-matched:13x2"]
    assert with_budget_matched(names[:3], pd.DataFrame(records)) == [
        "naive",
        "mosaic",
        "mosaic-budget-matched:13x2",
    ]
    # without MOSAIC's policies there is no control to name: the entry is left out
    assert with_budget_matched(names[:3], [record("naive", "a")]) == ["naive", "mosaic"]


def test_side_by_side_says_when_a_trace_was_recorded_before_typed_steps():
    old = Trace()
    with old.step("policy"):
        pass  # no payload: how traces were recorded before
    table = policy_side_by_side({"old": old, "new": make_trace([], signals={"depth": 3})})
    assert table.loc[("validation", "label"), "old"] == BEFORE_TYPED_STEPS
    assert table.loc[("policy", "max_depth"), "old"] == "—"
    assert table.loc[("policy", "max_depth"), "new"] == "3"
