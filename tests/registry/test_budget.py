"""ace_lab.registry.budget: one ``b<N>`` token, one meaning (the final context's cap) for all."""

from __future__ import annotations

import pytest

from ace_lab.arc.method import ArcConfig
from ace_lab.eval.studies.identity import config_hash
from ace_lab.eval.studies.study import read_jsonl, safe_name
from ace_lab.methods.hipporag import HippoConfig
from ace_lab.methods.naive import NaiveConfig
from ace_lab.methods.names import parse
from ace_lab.mosaic.method import MosaicConfig
from ace_lab.registry import spec
from ace_lab.registry.budget import split_budget, with_budget_token
from tests.support.paths import REPO

RESULTS = REPO / "results"
CAPS = {NaiveConfig: "budget_tokens", HippoConfig: "budget_tokens", MosaicConfig: "budget_tokens"}


def _cap(name: str) -> int:
    found = spec(name)
    for config in found.configs:
        for kind, field in CAPS.items():
            if isinstance(config, kind):
                return getattr(config, field)
        if isinstance(config, ArcConfig):
            return config.context_tokens
    raise AssertionError(f"{name}: no context cap")


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("naive:b600", "naive:b600"),
        ("hipporag:b600@hierarchical", "hipporag:b600@hierarchical"),
        ("mosaic:b600", "mosaic:b600"),
        ("mosaic:signals+b600", "mosaic:signals+b600"),
        ("mosaic-fixed:wide+b600", "mosaic-fixed:wide+b600"),
        ("arcrag:r1p1+strict+b600", "arcrag:strict+r1p1+b600"),
        ("arcrag:b600@openie", "arcrag:b600@openie"),
    ],
)
def test_budget_token_caps_the_final_context(name, canonical):
    assert spec(name).name == canonical
    assert _cap(name) == 600


def test_ace_reads_the_same_token_as_its_adaptation_budget():
    assert (
        spec("ace-full:b600").config(type(spec("ace-full").configs[0])).adapt.budget_tokens == 600
    )


@pytest.mark.parametrize("name", ["mosaic", "arcrag:strict+grammar+patterns+r1p1"])
def test_without_a_token_a_method_keeps_its_configuration_hash(name):
    """The hash the committed records were written with (ArcRAG's new cap is omitted at its
    default, the baselines' factories now pass the configuration they always ran with)."""
    path = RESULTS / "hotpotqa_dev_sample200-n20-s0" / f"{safe_name(name)}.jsonl"
    recorded = {rec["config_hash"] for rec in read_jsonl(path) if rec.get("config_hash")}
    assert recorded == {config_hash(name)}
    assert config_hash(f"{name}:b600" if ":" not in name else f"{name}+b600") != config_hash(name)


def test_split_and_write_the_token():
    assert split_budget(parse("arcrag:strict+r1p1+b600@openie")) == (
        parse("arcrag:strict+r1p1@openie"),
        600,
    )
    assert split_budget(parse("naive")) == (parse("naive"), None)
    assert with_budget_token("hipporag@hierarchical", 300) == "hipporag:b300@hierarchical"
    assert with_budget_token("mosaic>ace-full", 300) == "mosaic>ace-full:b300"
    assert with_budget_token("naive:b600", 300) == "naive:b300"


def test_a_malformed_budget_is_refused_with_one_line():
    with pytest.raises(KeyError, match="variant"):
        spec("arcrag:strict+b0600")
