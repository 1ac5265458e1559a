"""ace_lab.ace.specs: the ``:b<N>`` budget variant of every ACE name, the split pruning
ablations, and the configuration hashes of the names committed records carry."""

from __future__ import annotations

import pytest

from ace_lab.ace.specs import SHARED_BUDGET, ace_config, at_budget, split_variant
from ace_lab.eval.studies.identity import config_hash
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS
from ace_lab.registry import canonical_name, parse, spec

#: Hashes of names the committed results carry (results/*/manifest.json), taken before the
#: budget variant and the split pruning switch existed: they must not move.
COMMITTED_HASHES = {
    "ace-adaptive": "9ff8e8b4da6a3a93",
    "ace-adaptive-fewshot": "c5fc39db757d3050",
    "ace-adaptive@graphrag": "99c4b7f5bcc9a0e0",
    "ace-fixed-multires": "565875337242e05f",
    "ace-fixed:depth+prune": "47b5b79948a67676",
    "ace-fixed:gap+depth+breadth": "7a0fa083e7f6d062",
    "ace-full": "4ea5beabd55f2493",
    "ace-full@graphrag": "953c713caed12522",
    "ace-generic-prompt": "0f2edf3185f6e6ba",
    "ace-wo-breadth": "3d638c83c38cb6b7",
    "ace-wo-depth": "fd5b29eb2dc67583",
    "ace-wo-gap": "9e49f505c3093e2f",
    "ace-wo-pruning": "7d68f0f6a5337488",
    "ace>gap+depth": "529a6b1093001648",
    "hipporag>ace-full": "63ed539fb4aa6e01",
    "hipporag@hierarchical>ace-adaptive": "27ca50bfd67346bc",
    "mosaic:signals>ace-full": "6822acf2be5b8386",
}

BUDGETED = [
    "ace-full:b1500",
    "ace-adaptive:b1500",
    "ace-wo-gap:b1500",
    "ace-wo-report-drop:b1500",
    "ace-fixed:gap+depth+b1500",
    "ace-full:b1500@graphrag",
    "mosaic>ace-full:b1500",
    "hipporag@hierarchical>ace-adaptive:b1500",
]


@pytest.mark.parametrize(("name", "digest"), sorted(COMMITTED_HASHES.items()))
def test_existing_names_keep_their_configuration_hash(name, digest):
    assert config_hash(name) == digest


@pytest.mark.parametrize("name", BUDGETED)
def test_every_kind_of_ace_name_runs_at_the_shared_budget(name):
    assert SHARED_BUDGET == f"b{CONTEXT_BUDGET_TOKENS}" == "b1500"
    found = spec(name)
    assert found.name == name and str(parse(name)) == name  # the name round-trips
    budgets = [c.budget_tokens for c in found.configs if type(c).__name__ == "AdaptConfig"]
    assert budgets == [CONTEXT_BUDGET_TOKENS]
    unbudgeted = name.replace(":b1500", "").replace("+b1500", "")
    assert at_budget(unbudgeted, CONTEXT_BUDGET_TOKENS) == name
    assert config_hash(name) != config_hash(unbudgeted)
    # the budget is the only difference
    assert (
        ace_config(name.split(">")[-1].split("@")[0]).policy
        == ace_config(unbudgeted.split(">")[-1].split("@")[0]).policy
    )


def test_the_budget_token_parses_one_way():
    assert split_variant("gap+depth+breadth+b1500") == ("gap+depth+breadth", 1500)
    assert split_variant("gap+depth+breadth") == ("gap+depth+breadth", None)  # breadth ≠ b<N>
    assert split_variant("b1500") == ("", 1500)
    assert canonical_name("ace>gap+depth+b1500") == "ace-fixed:gap+depth+b1500"
    assert at_budget("ace-full:b2400", 1500) == "ace-full:b1500"
    assert ace_config("ace-full:b2400") == ace_config("ace-full")
    for bad, why in [
        ("ace-full:b01500", "no leading 0"),
        ("ace-fixed:b1500+gap", "written last"),
        ("ace-full:gap", "takes only a budget"),
        ("ace-full:b200000", "budget_tokens"),
        ("ace-fixed:b1500", "name the policy"),
    ]:
        with pytest.raises(KeyError, match=why):
            spec(bad)


def test_the_pruning_ablation_is_split_in_two():
    assert ace_config("ace-wo-pruning").policy.label == "gap+depth+breadth"
    semantic = ace_config("ace-wo-semantic-pruning").policy
    assert (semantic.pruning, semantic.reports_dropped) == (False, True)
    reports = ace_config("ace-wo-report-drop").policy
    assert (reports.pruning, reports.reports_dropped) == (True, False)
    assert canonical_name("ace-fixed:gap+depth+breadth+dropreports") == (
        "ace-fixed:gap+depth+breadth+dropreports"
    )
    hashes = {config_hash(n) for n in ("ace-wo-pruning", "ace-wo-semantic-pruning")}
    assert len(hashes | {config_hash("ace-wo-report-drop")}) == 3
