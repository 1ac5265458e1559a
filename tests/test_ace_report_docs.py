"""ace_lab.ace.report.docs: the router's agreement with the committed runs, as the docs quote it."""

from __future__ import annotations

import json

import pytest

from ace_lab.ace.report.docs import FIGURES, route_agreement
from ace_lab.eval.reporting import docs_numbers
from tests.conftest import RESULT_IDS, result_record


@pytest.fixture
def results(tmp_path):
    """Routes for two slices (one without a study) and a study whose runs routed 3 questions."""
    (tmp_path / "router").mkdir()
    routes = [
        {"slice": "toy-n3-s0", "prompt": "paper", "id": RESULT_IDS[i], "label": label}
        for i, label in enumerate(["CHAIN", "CONTRAST", "POINT"])
    ]
    routes += [{"slice": "toy-n3-s0", "prompt": "fewshot", "id": RESULT_IDS[0], "label": "CHAIN"}]
    routes += [{"slice": "absent-n3-s0", "prompt": "paper", "id": "x", "label": "CHAIN"}]
    (tmp_path / "router" / "routes.json").write_text(json.dumps(routes))
    study = tmp_path / "toy-n3-s0"
    study.mkdir()
    records = [
        result_record("ace-adaptive", i, topology=topology)
        for i, topology in enumerate(["CHAIN", "CHAIN", "POINT"])
    ]
    (study / "ace-adaptive.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    docs_numbers.study_records.cache_clear()
    yield tmp_path
    docs_numbers.study_records.cache_clear()


def test_route_agreement_counts_matching_labels_of_studies_that_exist(results):
    assert route_agreement(results, "paper", "ace-adaptive") == (2, 3)
    assert FIGURES["route_agreement"](results, ("paper", "ace-adaptive")) == "2 of 3"
    assert route_agreement(results, "fewshot", "ace-adaptive") == (1, 1)


def test_route_agreement_needs_the_router_measurement(tmp_path):
    with pytest.raises(ValueError, match="no router measurement"):
        route_agreement(tmp_path, "paper", "ace-adaptive")
