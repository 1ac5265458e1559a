"""ace_lab.eval.studies.estimate: a study's expected cost from recorded costs and measured
throughput."""

from __future__ import annotations

import json

import pytest

from ace_lab.config import ServingOptions
from ace_lab.data import load_dataset, make_slice
from ace_lab.eval.studies.estimate import (
    ASSUMED_GEN_TPS,
    ASSUMED_PROMPT_TPS,
    estimate_build,
    estimate_study,
    throughput,
)
from ace_lab.eval.studies.study import results_path
from ace_lab.graph.build import slice_chunks


def _write(path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_estimate_multiplies_the_questions_left_by_the_recorded_cost(settings) -> None:
    settings = settings.with_llm(serving=ServingOptions(backend="xllamacpp"))
    ids = [q.id for q in make_slice(load_dataset("toy"), 8).questions]
    # An earlier study of another data set recorded hirag at 2 calls, 700 in / 70 out.
    old = [{"id": f"o{i}", "method": "hirag", "llm_calls": 2, "input_tokens": 700,
            "output_tokens": 70} for i in range(3)]  # fmt: skip
    _write(settings.results_dir / "other-n5-s0" / "hirag.jsonl", old)
    # This study already answered 3 of the 8 questions: 5 are left.
    done = [dict(old[0], id=i) for i in ids[:3]]
    _write(results_path("toy-n8-s0", "hirag", settings), done)
    (settings.results_dir / "serving").mkdir(parents=True)
    measured = {"options": settings.llm.serving.as_dict(), "threads": settings.llm.threads,
                "prompt tok/s": 140.0, "gen tok/s": 14.0, "calls": 9}  # fmt: skip
    (settings.results_dir / "serving" / "llm_serving.json").write_text(json.dumps([measured]))

    table = estimate_study(["hirag", "never-run"], "toy", 8, settings=settings)
    hirag = table.set_index("method").loc["hirag"]
    assert hirag["questions to answer"] == 5 and hirag["LLM calls"] == 10
    assert hirag["input tokens"] == 3500 and hirag["output tokens"] == 350
    assert hirag["hours"] == round((3500 / 140 + 350 / 14) / 3600, 2)
    assert table.set_index("method").loc["never-run", "cost from"].startswith("no recorded")
    assert table.attrs["throughput"].source.startswith("measured")


def test_throughput_falls_back_to_the_assumed_defaults(settings) -> None:
    speed = throughput(settings)
    assert (speed.prompt_tps, speed.gen_tps) == (ASSUMED_PROMPT_TPS, ASSUMED_GEN_TPS)
    assert "assumed" in speed.source
    (settings.results_dir / "serving").mkdir(parents=True)
    (settings.results_dir / "serving" / "llm_serving.json").write_text("{broken")
    with pytest.raises(ValueError, match=r"llm_serving\.json"):
        throughput(settings)


def _chunk(chunk_id: str, tokens_in: int, tokens_out: int) -> dict:
    return {"chunk_id": chunk_id, "result": {}, "llm_calls": 1, "cache_hits": 0,
            "prompt_tokens": tokens_in, "completion_tokens": tokens_out,
            "fallbacks": 0}  # fmt: skip


def test_build_estimate_counts_unfinished_chunks_and_the_corpus_stages(settings) -> None:
    _, chunks = slice_chunks("toy", 8)
    # An earlier hierarchical build of another slice: 2 chunks at 200 in / 100 out on average,
    # and a cold corpus stage of 400 in / 40 out over its 2 chunks (200 / 20 per chunk).
    old = settings.graphs_dir / "other-n5-s0" / "hierarchical" / "qwen1.5b"
    _write(old / "hirag_extract.jsonl", [_chunk("a", 100, 50), _chunk("b", 300, 150)])
    corpus = {"stage": "corpus", "llm_calls": 4, "model_calls": 4, "prompt_tokens": 400,
              "completion_tokens": 40}  # fmt: skip
    # A stage that a rebuild mostly replayed from the cache says nothing of the cold cost.
    warm = {"stage": "replayed", "llm_calls": 9, "model_calls": 1, "prompt_tokens": 5,
            "completion_tokens": 5}  # fmt: skip
    extract = {"stage": "extract", "chunks": 2, "prompt_tokens_per_chunk": 200.0}
    (old / "tables").mkdir(parents=True)
    (old / "tables" / "meta.json").write_text(
        json.dumps({"chunks": 2, "cost": [extract, corpus, warm]})
    )
    # This slice's own build has finished one chunk.
    mine = settings.graphs_dir / "toy-n8-s0" / "hierarchical" / settings.llm.tier
    _write(mine / "hirag_extract.jsonl", [_chunk(chunks[0].id, 1, 1)])

    table = estimate_build(["hierarchical", "typed"], "toy", 8, settings=settings).set_index(
        "family"
    )
    row = table.loc["hierarchical"]
    todo = len(chunks) - 1
    assert row["chunks"] == len(chunks) and row["chunks to extract"] == todo
    assert row["input tokens"] == round(todo * 200 + len(chunks) * 200)
    assert row["output tokens"] == round(todo * 100 + len(chunks) * 20)
    speed = throughput(settings)
    hours = (row["input tokens"] / speed.prompt_tps + row["output tokens"] / speed.gen_tps) / 3600
    assert row["hours"] == pytest.approx(hours, abs=0.006)
    assert row["cost from"] == "other-n5-s0"
    assert table.loc["typed", "cost from"].startswith("no recorded build")


def test_a_finished_build_costs_nothing_more(settings) -> None:
    """Regression: a finished build still showed 0.44 h left (its corpus stages re-priced)."""
    _, chunks = slice_chunks("toy", 8)
    mine = settings.graphs_dir / "toy-n8-s0" / "hierarchical" / settings.llm.tier
    _write(mine / "hirag_extract.jsonl", [_chunk(c.id, 100, 10) for c in chunks])
    (mine / "tables").mkdir(parents=True)
    (mine / "tables" / "meta.json").write_text(json.dumps({"chunks": len(chunks), "cost": []}))
    row = estimate_build(["hierarchical"], "toy", 8, settings=settings).iloc[0]
    assert row["chunks to extract"] == 0 and row["hours"] == 0
    assert row["cost from"] == "finished build"
