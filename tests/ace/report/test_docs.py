"""ace_lab.ace.report.docs: the router's agreement with the committed runs, as the docs quote it."""

from __future__ import annotations

import json

import pytest

from ace_lab.ace.report.docs import FIGURES, route_agreement
from ace_lab.ace.router import ROUTER_PROMPTS
from ace_lab.eval.reporting import docs_numbers
from ace_lab.eval.reporting.docs_numbers import DocsError
from ace_lab.prompts import load_prompt
from tests.support.records import RESULT_IDS, result_record


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


def test_route_questions_is_one_count_per_slice_and_prompt(results):
    routes = results / "router" / "routes.json"
    even = [
        {"slice": s, "prompt": p, "id": RESULT_IDS[i], "label": "CHAIN"}
        for s in ("a-n2-s0", "b-n2-s0")
        for p in ("paper", "fewshot")
        for i in range(2)
    ]
    routes.write_text(json.dumps(even))
    assert FIGURES["route_questions"](results, ()) == "2"
    routes.write_text(json.dumps(even[1:]))  # slice a routed one question with the paper prompt
    with pytest.raises(DocsError, match="different numbers of questions"):
        FIGURES["route_questions"](results, ())
    with pytest.raises(DocsError, match="no router measurement"):
        FIGURES["route_questions"](results / "absent", ())


def test_router_examples_counts_the_turns_the_prompt_sends():
    system = load_prompt(ROUTER_PROMPTS["fewshot"]).system
    examples = sum(line.startswith('Query: "') for line in system.splitlines())
    assert examples > 1
    assert FIGURES["router_examples"](None, ("fewshot",)) == str(examples)
    assert FIGURES["router_examples"](None, ("paper",)) == "0"
    with pytest.raises(DocsError, match="no router prompt 'other'"):
        FIGURES["router_examples"](None, ("other",))
