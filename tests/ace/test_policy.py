"""ace_lab.ace.policy: the topology → policy table, the full policy, validation, fixed labels."""

from __future__ import annotations

import pytest

from ace_lab.ace.policy import (
    ContextPolicy,
    fixed_policies,
    full_policy,
    parse_policy,
    profile_for,
    topology_policy,
)


@pytest.mark.parametrize(
    ("label", "gap", "branches", "pruning"),
    [
        ("POINT", True, ("depth",), True),
        ("CONTRAST", True, ("breadth",), True),
        ("CHAIN", True, ("depth", "breadth"), False),
        ("OVERVIEW", False, ("depth", "breadth"), True),
    ],
)
def test_topology_policy_table(label, gap, branches, pruning):
    policy = topology_policy(label, "qa")
    assert (policy.gap, policy.branches, policy.pruning) == (gap, branches, pruning)


def test_full_policy_and_validation():
    full = full_policy("qfs")
    assert (full.gap, full.branches, full.pruning, full.profile) == (
        True,
        ("depth", "breadth"),
        True,
        "qfs",
    )
    assert ContextPolicy(branches=("breadth", "depth")).branches == ("depth", "breadth")
    with pytest.raises(ValueError, match="at least one"):
        full.without("depth", "breadth")
    with pytest.raises(ValueError, match="unknown branches"):
        ContextPolicy(branches=("sideways",))
    with pytest.raises(ValueError, match="profile"):
        ContextPolicy(profile="chat")
    with pytest.raises(ValueError, match="topology"):
        topology_policy("STAR")
    assert full_policy().without("gap").label == "depth+breadth+prune"
    assert len(fixed_policies()) == 12
    assert all(parse_policy(k) == p for k, p in fixed_policies().items())


def test_open_answers_adapt_with_the_qa_profile():
    assert [profile_for(t) for t in ("qa", "qfs", "open")] == ["qa", "qfs", "qa"]
    assert full_policy(profile_for("open")).profile == "qa"


def test_pruning_and_report_dropping_are_two_switches_coupled_by_default():
    full = full_policy()
    assert full.drop_reports is None and full.reports_dropped  # coupled: follows pruning
    assert not full.without("pruning").reports_dropped  # the paper's switch: both halves
    assert full.without("pruning") == ContextPolicy(pruning=False)
    semantic = full.without("semantic-pruning")
    assert (semantic.pruning, semantic.reports_dropped) == (False, True)
    assert semantic.label == "gap+depth+breadth+dropreports"
    reports = full.without("report-drop")
    assert (reports.pruning, reports.reports_dropped) == (True, False)
    assert reports.label == "gap+depth+breadth+prune+keepreports"
    assert reports.without("semantic-pruning") == full.without("pruning")
    # a report switch equal to pruning is the coupled default, spelt one way
    assert ContextPolicy(pruning=True, drop_reports=True) == full
    assert ContextPolicy(pruning=False, drop_reports=False).drop_reports is None
    with pytest.raises(ValueError, match="cannot remove"):
        full.without("reports")


def test_split_labels_round_trip_and_redundant_tokens_are_refused():
    for label in ("gap+depth+breadth+prune+keepreports", "depth+dropreports", "gap+breadth"):
        assert parse_policy(label).label == label
    assert parse_policy("depth+dropreports").reports_dropped
    for bad in ("depth+keepreports", "depth+prune+dropreports", "prune+keepreports+dropreports"):
        with pytest.raises(ValueError, match="cannot parse policy"):
            parse_policy(bad)
    # the coupled policies' rows stay as they were; a split one says so
    assert "drop_reports" not in full_policy().to_dict()
    assert full_policy().without("report-drop").to_dict()["drop_reports"] is False
