"""ace_lab.mosaic.specs: MOSAIC's registered names, the parametric ones, their families and
configurations, and every entry answering through the shared generator."""

from __future__ import annotations

import pytest

from ace_lab.llm import LLM
from ace_lab.mosaic.method import MOSAIC_METHODS, Mosaic
from ace_lab.mosaic.policy import BUDGET_MATCHED_DEFAULT, FIXED_POLICIES, ExplorationPolicy
from ace_lab.registry import METHODS, describe_method, graph_family, make_method, spec
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient


def test_registered_names_and_their_policies():
    assert set(MOSAIC_METHODS) <= set(METHODS)
    assert spec("mosaic").description.startswith("MOSAIC: the analyzer's reply is the")
    assert spec("mosaic:signals").description.startswith("MOSAIC: six analyzer signals")
    for width, policy in FIXED_POLICIES.items():
        assert spec(f"mosaic-fixed:{width}").config(ExplorationPolicy) == policy
    default = spec("mosaic-budget-matched").config(ExplorationPolicy)
    assert (default.evidence_budget, default.max_depth) == BUDGET_MATCHED_DEFAULT
    matched = spec("mosaic-budget-matched:14x4")
    assert matched.configs[1].evidence_budget == 14 and matched.configs[1].max_depth == 4
    assert graph_family("mosaic") == "hierarchical"
    assert graph_family("mosaic-fixed:wide@openie") == "openie"
    rows = describe_method("mosaic")
    assert {"seed_count", "beam_width", "source_passages"} <= set(rows["field"])
    assert rows["help"].str.len().min() > 10
    assert isinstance(spec("mosaic").configs[1], ExplorationPolicy)


@pytest.mark.parametrize(
    "bad", ["mosaic-fixed:huge", "mosaic@typed", "mosaic-budget-matched:lots", "mosaic-x"]
)
def test_bad_mosaic_names_are_refused(bad):
    with pytest.raises(KeyError):
        spec(bad)


def test_every_mosaic_entry_answers_even_when_the_analyzer_output_is_not_json(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))  # never a valid analyzer reply
    for name in MOSAIC_METHODS:
        method = make_method(name, toy_graph, llm)
        answer = method.answer("Who founded the observatory?")
        assert isinstance(method, Mosaic) and answer.text == "Brinemouth", name
        assert answer.context.evidence and answer.details.evidence_retained > 0, name
