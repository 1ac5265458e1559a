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
