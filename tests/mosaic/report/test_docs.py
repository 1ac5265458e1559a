"""ace_lab.mosaic.report.docs: MOSAIC's effort, policy and connector figures in the docs."""

from __future__ import annotations

import dataclasses
import json

import pytest

from ace_lab.eval.reporting import docs_numbers
from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.report.docs import FIGURES
from tests.support.records import result_record


def _record(method: str, i: int, paths: int, evidence: int, connectors: bool, kind: str) -> dict:
    policy = dataclasses.asdict(dataclasses.replace(ExplorationPolicy(), connectors=connectors))
    stats = {"policy": policy, "paths_evaluated": paths, "evidence_retained": evidence}
    return result_record(method, i, stats=stats, type=kind)


@pytest.fixture
def results(tmp_path):
    """MOSAIC (two policies) and Fixed Wide on three questions of two types."""
    study = tmp_path / "toy-n3-s0"
    study.mkdir()
    mosaic = [
        _record("mosaic", 0, 10, 8, True, "Complex Reasoning"),
        _record("mosaic", 1, 20, 8, False, "Fact Retrieval"),
        _record("mosaic", 2, 30, 8, True, "Fact Retrieval"),
    ]
    wide = [_record("mosaic-fixed:wide", i, 40, 16, True, "Fact Retrieval") for i in range(3)]
    for name, records in (("mosaic", mosaic), ("mosaic-fixed_wide", wide)):
        (study / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    docs_numbers.study_records.cache_clear()
    yield tmp_path
    docs_numbers.study_records.cache_clear()


def test_effort_against_fixed_wide(results):
    paths = FIGURES["effort"](results, ("toy-n3-s0", "mosaic", "paths"))
    assert paths == "50 % fewer paths (20.0 against 40.0)"
    evidence = FIGURES["effort"](results, ("toy-n3-s0", "mosaic", "evidence"))
    assert evidence == "50 % less evidence (8.0 against 16.0)"
    more = FIGURES["effort"](results, ("toy-n3-s0", "mosaic-fixed:wide", "paths"))
    assert more == "0 % more paths (40.0 against 40.0)"


def test_policies_and_connectors(results):
    assert FIGURES["policies"](results, ("toy-n3-s0", "mosaic")) == "2"
    assert FIGURES["connectors"](results, ("toy-n3-s0", "mosaic")) == "2 of 3"
    assert FIGURES["connectors"](results, ("toy-n3-s0", "mosaic", "Fact_Retrieval")) == "1 of 2"
    other = ("toy-n3-s0", "mosaic", "other:Fact_Retrieval")
    assert FIGURES["connectors"](results, other) == "1 of 1"


def test_policy_means_round_half_up_as_the_control_name_does(tmp_path):
    study = tmp_path / "toy-n2-s0"
    study.mkdir()
    policies = [ExplorationPolicy(evidence_budget=10, max_depth=2), ExplorationPolicy()]
    records = [
        result_record("mosaic", i, stats={"policy": dataclasses.asdict(policy)})
        for i, policy in enumerate(policies)
    ]
    (study / "mosaic.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    docs_numbers.study_records.cache_clear()
    try:  # budgets 10 and 12, depth caps 2 and 3: means 11 and 2.5, the control's 11x3
        means = FIGURES["policy_means"](tmp_path, ("toy-n2-s0", "mosaic"))
        assert means == "mean evidence budget 11, mean depth cap 3"
        with pytest.raises(ValueError, match="no mosaic:signals policies"):
            FIGURES["policy_means"](tmp_path, ("toy-n2-s0", "mosaic:signals"))
    finally:
        docs_numbers.study_records.cache_clear()
