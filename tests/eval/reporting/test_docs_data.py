"""ace_lab.eval.reporting.docs_data: a study README's slice and graph facts, generated from the
study's records and the committed graph build's meta (the committed GraphRAG-Bench build's
counts are the ones its README gives)."""

from __future__ import annotations

import json

import pytest

from ace_lab.eval.reporting import docs_numbers
from ace_lab.eval.reporting.docs_data import FIGURES
from ace_lab.eval.reporting.docs_numbers import DocsError
from tests.support.paths import REPO
from tests.support.records import result_record


@pytest.fixture
def results(tmp_path):
    root = tmp_path / "repo"
    study = root / "results" / "toy-n4-s0"
    study.mkdir(parents=True)
    kinds = ["Fact_Retrieval", "Complex_Reasoning", "Fact_Retrieval", None]
    lines = [json.dumps(result_record("naive", i, type=k)) for i, k in enumerate(kinds)]
    (study / "naive.jsonl").write_text("\n".join(lines) + "\n")
    meta = root / "data" / "graphs" / "toy-n4-s0" / "hierarchical" / "m" / "tables"
    meta.mkdir(parents=True)
    counts = {"node_labels": {"Entity": 1468}, "edge_types": {"RELATED": 7}}
    (meta / "meta.json").write_text(json.dumps({"chunks": 9, "levels": [{}, {}], "counts": counts}))
    docs_numbers.study_records.cache_clear()
    yield root / "results"
    docs_numbers.study_records.cache_clear()


def test_graph_facts_come_from_the_build_meta(results):
    build = "toy-n4-s0/hierarchical/m"
    assert FIGURES["graph"](results, (build, "counts.node_labels.Entity")) == "1,468"
    assert FIGURES["graph"](results, (build, "levels")) == "2"
    assert FIGURES["graph"](results, (build, "chunks")) == "9"
    with pytest.raises(DocsError, match=r"no 'counts\.missing'"):
        FIGURES["graph"](results, (build, "counts.missing"))
    with pytest.raises(DocsError, match="no committed graph build"):
        FIGURES["graph"](results, ("other/hierarchical/m", "chunks"))


def test_question_types_are_counted_most_first(results):
    assert FIGURES["question_types"](results, ("toy-n4-s0", "naive")) == (
        "2 Fact Retrieval, 1 Complex Reasoning, 1 untyped"
    )
    with pytest.raises(DocsError, match="no records of 'hirag'"):
        FIGURES["question_types"](results, ("toy-n4-s0", "hirag"))


def test_hops_are_counted_from_musique_types_fewest_first(results):
    study = results / "toy-hops"
    study.mkdir()
    kinds = ["3hop1", "2hop", "4hop2", "2hop", "3hop2"]
    lines = [json.dumps(result_record("naive", i, type=k)) for i, k in enumerate(kinds)]
    (study / "naive.jsonl").write_text("\n".join(lines) + "\n")
    assert FIGURES["hops"](results, ("toy-hops", "naive")) == (
        "2 two-hop, 2 three-hop and 1 four-hop"
    )
    with pytest.raises(DocsError, match="type 'Fact_Retrieval', no hops"):
        FIGURES["hops"](results, ("toy-n4-s0", "naive"))


def test_the_committed_medical_build_is_what_its_readme_says():
    results = REPO / "results"
    build = "graphragbench_medical-n20-s0/hierarchical/qwen1.5b"
    readme = (results / "graphragbench_medical-n20-s0" / "README.md").read_text()
    entities = FIGURES["graph"](results, (build, "counts.node_labels.Entity"))
    assert f"counts.node_labels.Entity: begin -->{entities}<!--" in readme


def test_graph_keys_index_lists_by_number(results):
    meta = results.parent / "data" / "graphs" / "toy-n4-s0" / "openie" / "m" / "tables"
    meta.mkdir(parents=True)
    cost = [{"stage": "extract", "fallbacks": 3}, {"stage": "corpus", "llm_calls": 1200}]
    (meta / "meta.json").write_text(json.dumps({"cost": cost, "build_wall_s": 1337.4}))
    build = "toy-n4-s0/openie/m"
    assert FIGURES["graph"](results, (build, "cost.0.fallbacks")) == "3"
    assert FIGURES["graph"](results, (build, "cost.1.llm_calls")) == "1,200"
    assert FIGURES["graph"](results, (build, "cost")) == "2"
    assert FIGURES["graph"](results, (build, "build_wall_s")) == "1337.4"
    for missing in ("cost.2.fallbacks", "cost.stage", "build_wall_s.0"):
        with pytest.raises(DocsError, match=r"in its meta\.json"):
            FIGURES["graph"](results, (build, missing))


def test_slice_documents_counts_the_distinct_sources_of_the_passages(results):
    slices = results.parent / "data" / "slices"
    slices.mkdir(parents=True)
    passages = [{"id": f"{d}#c{i}", "meta": {"doc_id": d}} for i, d in enumerate("aabca")]
    (slices / "toy-n4-s0.json").write_text(json.dumps({"passages": passages}))
    assert FIGURES["slice_documents"](results, ("toy-n4-s0",)) == "3"
    (slices / "bare-n1-s0.json").write_text(json.dumps({"passages": [{"id": "x"}]}))
    with pytest.raises(DocsError, match=r"has no meta\.doc_id"):
        FIGURES["slice_documents"](results, ("bare-n1-s0",))
    with pytest.raises(DocsError, match="no committed slice"):
        FIGURES["slice_documents"](results, ("other-n4-s0",))
