"""bench/extraction_speed.py's plumbing on a scripted model (it never runs the real one here):
both formats on the same chunks, interleaved, with tokens, seconds and agreement per family."""

from __future__ import annotations

import json

import pytest

from ace_lab.data import Chunk
from ace_lab.graph.typed.schema import InducedSchema
from ace_lab.prompts import load_prompt
from tests.support.benches import load_bench
from tests.support.scripted import scripted_llm

bench = load_bench("extraction_speed")

SCHEMA = InducedSchema(("Person", "Place"), ("MET", "BORN_IN"))
CHUNKS = [
    ("a", Chunk("a1", "p1", "Ada", "Ada met Charles in London.", 0)),
    ("b", Chunk("b1", "p2", "Bob", "Bob was born in Paris.", 0)),
]


def _reply(kwargs: dict) -> str:
    """The same facts in whichever format the prompt asks for."""
    system = kwargs["messages"][0]["content"]
    user = kwargs["messages"][-1]["content"]
    a, b = ("Ada", "Charles") if "Ada met" in user else ("Bob", "Paris")
    if system == load_prompt("hirag_extract").system:
        rel = [[a, b, f"{a} and {b}.", 8]]
        return json.dumps({"entities": [[a, "PERSON", "x"], [b, "PERSON", "y"]], "relations": rel})
    if system == load_prompt("hirag_extract_compact").system:
        return f"E|{a}|PERSON|x\nE|{b}|PERSON|y\nR|{a}|{b}|{a} and {b}.|8\n"
    if system == load_prompt("openie_joint").system:
        return json.dumps({"named_entities": [a, b], "triples": [[a, "met", b]]})
    if system == load_prompt("openie_joint_compact").system:
        return f"E|{a}\nE|{b}\nT|{a}|met|{b}\n"
    if system == load_prompt("typed_extract").system:
        triple = {"subject": a, "subject_type": "Person", "relation": "MET", "object": b}
        return json.dumps({"triples": [triple | {"object_type": "Person"}]})
    if system == load_prompt("typed_extract_compact").system:
        return f"T|{a}|Person|MET|{b}|Person\n"
    raise AssertionError(system[:60])


def test_both_formats_run_on_the_same_chunks_and_agree(settings) -> None:
    llm = scripted_llm(settings, _reply)
    schemas = {"a": SCHEMA}  # data set b has no typed build: left out of the typed rows
    rows = bench.measure(CHUNKS, ["hierarchical", "openie", "typed"], llm, schemas)
    table = {(r["family"], r["format"]): r for r in rows}
    assert set(table) == {
        (f, x) for f in ("hierarchical", "openie", "typed") for x in bench.FORMATS
    }
    assert (
        table[("hierarchical", "json")]["chunks"] == 2
        and table[("typed", "compact")]["chunks"] == 1
    )
    for row in rows:
        assert row["entity F1 vs json"] == 1.0 and row["triple F1 vs json"] == 1.0
        assert row["output tokens/chunk"] > 0 and row["s/chunk"] >= 0
    assert table[("openie", "json")]["speed-up vs json"] == 1.0
    sent = [r for r in llm.client().requests if "extra_body" in r]
    assert len(sent) == 5  # one grammar-bound call per chunk and family in the compact format
    # formats interleave per chunk: JSON then compact for each chunk in turn
    systems = [r["messages"][0]["content"] for r in llm.client().requests[:4]]
    assert systems[0] == load_prompt("hirag_extract").system
    assert systems[1] == load_prompt("hirag_extract_compact").system


@pytest.mark.parametrize(
    ("found", "reference", "score"),
    [(set(), set(), 1.0), ({"a"}, set(), 0.0), ({"a", "b"}, {"a"}, 2 / 3)],
)
def test_f1(found: set, reference: set, score: float) -> None:
    assert bench.f1(found, reference) == pytest.approx(score)


def test_the_bench_chunks_come_from_the_committed_slices() -> None:
    chunks = bench.bench_chunks(list(bench.DEFAULT_DATASETS), 3)
    assert [d for d, _ in chunks] == ["hotpotqa_dev_sample200"] * 3 + ["musique_dev_sample292"] * 3


def test_typed_rows_use_the_committed_builds_schemas() -> None:
    from ace_lab.config import load_settings

    found = bench.committed_schemas(list(bench.DEFAULT_DATASETS), "qwen1.5b", load_settings())
    assert set(found) == set(bench.DEFAULT_DATASETS)
    assert all(len(s.node_types) >= 2 for s in found.values())
