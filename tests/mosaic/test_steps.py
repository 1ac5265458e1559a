"""ace_lab.mosaic.steps: MOSAIC's payloads survive a record, and ``MosaicDetails.columns`` are
the record columns MOSAIC wrote before typed details (a committed record rebuilt exactly)."""

from __future__ import annotations

import json

import pytest

from ace_lab.mosaic.steps import MosaicDetails
from ace_lab.steps import from_record, to_record
from tests.support.mosaic_synthetic import two_depth_trace
from tests.support.paths import REPO

RESULTS = REPO / "results"


def test_every_payload_of_a_trace_round_trips_through_json():
    trace = two_depth_trace(signals={"targets": ["A", "B"], "comparison": True})
    for step in trace.steps:
        stored = json.loads(json.dumps(to_record(step.payload)))
        assert from_record(stored) == step.payload, step.name


def test_an_unknown_version_loads_as_none():
    payload = two_depth_trace().steps[2].payload
    assert from_record(to_record(payload) | {"v": 99}) is None


@pytest.mark.parametrize("name", ["mosaic.jsonl", "mosaic-fixed_narrow.jsonl"])
def test_details_rebuild_the_columns_of_a_committed_record(name):
    path = RESULTS / "2wikimultihopqa_hipporag1000-n20-s0" / name
    if not path.is_file():
        pytest.skip(f"{path} is not committed here")
    record = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    stats = dict(record["stats"])
    policy, label = stats.pop("policy"), stats.pop("policy_label")
    details = MosaicDetails(policy=policy, label=label, **stats)
    columns = json.loads(json.dumps(details.columns()))
    assert columns == {"policy": record["policy"], "stats": record["stats"]}
    assert list(columns["stats"]) == list(record["stats"])  # same keys, same order
