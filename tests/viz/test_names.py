"""Display names: method and data-set ids → the names figures show."""

from __future__ import annotations

import pytest

from ace_lab.viz.names import dataset_name, display_name, family_name, method_names


@pytest.mark.parametrize(
    ("method_id", "shown"),
    [
        ("naive", "NaiveRAG"),
        ("hirag", "HiRAG"),
        ("hipporag", "HippoRAG"),
        ("graphrag", "GraphRAG"),
        ("lightrag", "LightRAG"),
        ("ace-full", "Full-ACE"),
        ("ace-adaptive", "Adaptive-ACE"),
        ("mosaic", "MOSAIC"),
        ("ace-full:b600", "Full-ACE (B=600)"),
        ("ace-fixed:gap+depth+b1500", "Fixed-ACE (gap+depth+B=1500)"),
        ("arcrag@openie", "ArcRAG on OpenIE"),
        ("arcrag:r1p1", "ArcRAG (r1p1)"),
        (
            "arcrag:strict+grammar+patterns+r1p1@openie-bare",
            "ArcRAG (strict+grammar+patterns+r1p1) on bare OpenIE",
        ),
        ("direct-cypher:grammar", "Direct-Cypher (grammar)"),
        ("mosaic:signals", "MOSAIC (signals)"),
        ("mosaic-budget-matched:12x2", "MOSAIC (budget-matched, 12x2)"),
        ("mosaic>ace-full", "MOSAIC → Full-ACE"),
        ("hipporag@hierarchical>ace-adaptive", "HippoRAG on hierarchical graph → Adaptive-ACE"),
        ("mosaic>narrow", "MOSAIC (narrow)"),
        ("ace>gap+depth", "ACE (gap+depth)"),
        ("ace-full@graphrag", "Full-ACE on GraphRAG"),
    ],
)
def test_display_name_renders_head_variant_family_and_policy(method_id, shown):
    assert display_name(method_id) == shown


@pytest.mark.parametrize("text", ["Overall", "unknown-method", "", "mean F1"])
def test_display_name_leaves_what_is_not_a_known_id_unchanged(text):
    assert display_name(text) == text


def test_every_registered_head_has_a_display_name():
    # the registry's names are the ids records carry; a head without a name would show raw
    from ace_lab.registry.specs import SPECS

    heads = {spec.name.split(":")[0].split("@")[0] for spec in SPECS}
    assert heads <= set(method_names()), heads - set(method_names())


@pytest.mark.parametrize(
    ("dataset_id", "shown"),
    [
        ("hotpotqa_dev_sample200", "HotpotQA"),
        ("2wikimultihopqa_hipporag1000", "2Wiki"),
        ("musique_dev_sample292", "MuSiQue"),
        ("graphragbench_medical", "GraphRAG-Bench Medical"),
        ("graphragbench_novel", "GraphRAG-Bench Novel"),
        ("hotpotqa_dev_sample200-n20-s0", "HotpotQA"),
        ("musique_dev_sample292-n10-s0", "MuSiQue"),
        ("hotpotqa_dev_sample200-n20-s0-cold", "HotpotQA (cold)"),
        ("my_own_corpus", "my_own_corpus"),
        ("my_own_corpus-n5-s0", "my_own_corpus-n5-s0"),
    ],
)
def test_dataset_name_of_data_sets_and_slices(dataset_id, shown):
    assert dataset_name(dataset_id) == shown


def test_every_known_data_set_has_a_display_name():
    from ace_lab.data.registry import DATASETS

    missing = [name for name in DATASETS if dataset_name(name) == name]
    assert not missing, missing


def test_family_name_is_a_noun_for_titles():
    assert family_name("openie") == "OpenIE graph"
    assert family_name("openie-bare") == "bare OpenIE graph"
    assert family_name("typed") == "typed graph"
    assert family_name("hierarchical") == "hierarchical graph"
    assert family_name("hirag") == "HiRAG graph"
    assert family_name("mine") == "mine"
