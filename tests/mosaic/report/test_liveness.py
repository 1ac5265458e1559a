"""MOSAIC's decisions for the liveness tables: the analyzer's controls as validated and as
written, what a fixed policy decides, and a clamp that makes seed_count inert."""

from __future__ import annotations

import pandas as pd

from ace_lab.mosaic.controls import decide_controls
from ace_lab.mosaic.report.liveness import (
    is_analyzed,
    is_mosaic,
    mosaic_decisions,
    mosaic_liveness,
)
from ace_lab.mosaic.steps import ExplorationChoice
from ace_lab.steps import to_record

STATS = {"stop_reason": "converged", "depth_reached": 2, "connectors_used": 3}
STATS |= {"analyzer_fallback": False}


def _record(written: dict, method: str = "mosaic", i: int = 0) -> dict:
    """A MOSAIC record whose analyzer wrote ``written``, validated as the method does."""
    decision = decide_controls(written)
    policy = decision.policy.to_dict()
    choice = ExplorationChoice(policy, decision.policy.label, raw=decision.raw)
    steps = [{"name": "policy", "payload": to_record(choice)}]
    stats = STATS | {"policy": policy}
    return {"id": f"q{i}", "method": method, "policy": policy, "stats": stats, "steps": steps}


def test_an_analyzer_record_gives_each_control_as_validated_and_as_written():
    decided = mosaic_decisions(
        _record({"seed_count": 1, "targets": ["A", "B"], "connectors": True})
    )
    assert decided["seed_count"] == 5  # clamped to the paper's lower bound
    assert decided["seed_count as written"] == 1
    assert decided["targets"] == 2 and decided["connectors"] is True
    assert "patience" not in decided  # the paper fixes it
    assert decided["max_depth as written"] == "(left out)"  # the default was used
    assert decided["analyzer fallback"] is False
    assert decided["stop reason"] == "converged" and decided["depth reached"] == 2
    assert decided["connectors used"] is True


def test_a_fixed_policy_decides_only_how_its_run_went():
    rec = _record({}, method="mosaic-fixed:wide")
    decided = mosaic_decisions(rec)
    assert set(decided) == {"stop reason", "depth reached", "connectors used"}
    assert decided["connectors used"] is None  # the policy's connectors are off
    assert mosaic_decisions({"method": "mosaic", "stats": None}) is None


def test_an_old_record_without_the_typed_step_still_gives_the_validated_controls():
    rec = _record({"seed_count": 9})
    rec["steps"] = [{"name": "policy"}]
    decided = mosaic_decisions(rec)
    assert decided["seed_count"] == 9 and "seed_count as written" not in decided
    assert decided["analyzer fallback"] is False  # from stats


def test_names():
    assert is_analyzed("mosaic") and is_analyzed("mosaic:signals@openie")
    assert not is_analyzed("mosaic-fixed:narrow") and not is_analyzed("mosaic-budget-matched:12x2")
    assert is_mosaic("mosaic-fixed:wide") and not is_mosaic("mosaic>ace-full")


def test_seed_count_written_below_the_range_on_every_question_is_inert_after_the_clamp():
    rows = [_record({"seed_count": 1 + i % 2, "max_depth": 2 + i % 3}, i=i) for i in range(20)]
    table = mosaic_liveness(pd.DataFrame(rows))
    seeds = table[table["mechanism"] == "seed_count"]
    assert seeds[["value", "count"]].values.tolist() == [["5", 20]] and seeds["inert"].all()
    written = table[table["mechanism"] == "seed_count as written"]
    assert sorted(written["value"]) == ["1", "2"] and not written["inert"].any()
    assert not table[table["mechanism"] == "max_depth"]["inert"].any()
    assert mosaic_liveness(rows).equals(table)  # the record dicts notebook 05 holds


def test_a_branch_step_s_fixed_policy_is_not_the_question_s_decision():
    """A composition's record holds MOSAIC's exploration for a branch of another method
    (``depth/policy``, a fixed policy); the decision is the record's own ``policy`` step's,
    wherever the branch step stands."""
    rec = _record({"seed_count": 9})
    fixed = decide_controls({"seed_count": 3, "max_depth": 4})
    branch = ExplorationChoice(fixed.policy.to_dict(), fixed.policy.label, "fixed", raw=fixed.raw)
    rec["steps"] = [{"name": "depth/policy", "payload": to_record(branch)}, *rec["steps"]]
    decided = mosaic_decisions(rec)
    assert decided["seed_count as written"] == 9 and decided["max_depth as written"] == "(left out)"
