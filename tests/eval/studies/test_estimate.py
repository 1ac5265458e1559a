"""ace_lab.eval.studies.estimate: a study's and a build's expected cost from recorded costs and
the speed of the endpoint in use (tests/eval/studies/test_throughput.py tests that speed)."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest

from ace_lab.config import ServingOptions
from ace_lab.data import load_dataset, make_slice
from ace_lab.eval.studies.estimate import estimate_build, estimate_study, estimate_text
from ace_lab.eval.studies.study import results_path
from ace_lab.eval.studies.throughput import (
    ASSUMED_GEN_TPS,
    ASSUMED_PROMPT_TPS,
    CACHE_FILE,
    endpoint_identity,
    in_flight,
    throughput,
)
from ace_lab.graph.build import slice_chunks
from ace_lab.llm import LLM
from ace_lab.llm.cache import ResponseCache, cache_key


def _write(path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_estimate_multiplies_the_questions_left_by_the_recorded_cost(settings) -> None:
    settings = settings.with_llm(serving=ServingOptions(backend="xllamacpp"))
    ids = [q.id for q in make_slice(load_dataset("toy"), 8).questions]
    # An earlier study of another data set recorded hirag at 2 calls, 700 in / 70 out.
    old = [
        {"id": f"o{i}", "method": "hirag", "llm_calls": 2, "input_tokens": 700, "output_tokens": 70}
        for i in range(3)
    ]
    _write(settings.results_dir / "other-n5-s0" / "hirag.jsonl", old)
    # This study already answered 3 of the 8 questions: 5 are left.
    done = [dict(old[0], id=i) for i in ids[:3]]
    _write(results_path("toy-n8-s0", "hirag", settings), done)
    (settings.results_dir / "serving").mkdir(parents=True)
    measured = {"options": settings.llm.serving.as_dict(), "threads": settings.llm.threads,
                "prompt tok/s": 140.0, "gen tok/s": 14.0, "calls": 9}  # fmt: skip
    (settings.results_dir / "serving" / "llm_serving.json").write_text(json.dumps([measured]))

    table = estimate_study(["hirag", "naive"], "toy", 8, settings=settings)
    hirag = table.set_index("method").loc["hirag"]
    assert hirag["questions to answer"] == 5 and hirag["LLM calls"] == 10
    assert hirag["input tokens"] == 3500 and hirag["output tokens"] == 350
    assert hirag["hours"] == round((3500 / 140 + 350 / 14) / 3600, 2)
    assert table.set_index("method").loc["naive", "cost from"].startswith("no recorded")
    assert table.attrs["throughput"].source.startswith("serving table")
    assert set(table["speed from"]) == {"serving table"}


def test_an_evidence_only_estimate_prices_evidence_records_and_counts_its_own_study(
    settings,
) -> None:
    ids = [q.id for q in make_slice(load_dataset("toy"), 8).questions]
    # Answered runs made 2 calls a question; evidence-only runs stop before the answer: 1.
    answered = {"method": "ace-full", "llm_calls": 2, "input_tokens": 900, "output_tokens": 90}
    stopped = answered | {"llm_calls": 1, "input_tokens": 600, "output_tokens": 60}
    _write(settings.results_dir / "a-n5-s0" / "ace-full.jsonl", [answered | {"id": "x"}])
    _write(
        settings.results_dir / "a-n5-s0-evidence" / "ace-full.jsonl",
        [stopped | {"id": "x", "evidence_only": True}],
    )
    # The evidence study already holds 2 of the 8 questions, the answered study none.
    _write(
        results_path("toy-n8-s0-evidence", "ace-full", settings),
        [stopped | {"id": i, "evidence_only": True} for i in ids[:2]],
    )
    kw = {"settings": settings, "allow_probe": False}
    row = estimate_study(["ace-full"], "toy", 8, evidence=True, **kw).iloc[0]
    assert row["questions to answer"] == 6 and row["LLM calls"] == 6
    assert row["input tokens"] == 3600 and row["cost from"] == "toy-n8-s0-evidence"
    answered_row = estimate_study(["ace-full"], "toy", 8, **kw).iloc[0]
    assert answered_row["questions to answer"] == 8 and answered_row["LLM calls"] == 16
    # With no evidence-only record, the answered cost stands in, labelled an upper bound.
    _write(
        settings.results_dir / "b-n5-s0" / "hirag.jsonl",
        [answered | {"id": "y", "method": "hirag"}],
    )
    hirag = estimate_study(["hirag"], "toy", 8, evidence=True, **kw).iloc[0]
    assert hirag["cost from"] == "b-n5-s0 (answered: an upper bound)"


def _chunk(chunk_id: str, tokens_in: int, tokens_out: int) -> dict:
    return {
        "chunk_id": chunk_id,
        "result": {},
        "llm_calls": 1,
        "cache_hits": 0,
        "prompt_tokens": tokens_in,
        "completion_tokens": tokens_out,
        "fallbacks": 0,
    }


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


# --------------------------------------------------------------- the endpoint in use
REMOTE = "http://127.0.0.1:9/v1"  # port 9 (discard): refused at once, nothing is reached


def _remote(settings, model: str, **changes):
    return settings.with_llm(base_url=REMOTE, model=model, **changes)


def _record_calls(settings, identity: str, seconds) -> None:
    """Cached responses of ``identity``, each with its tokens and the latency ``seconds`` gives."""
    cache = ResponseCache(settings.cache_dir / CACHE_FILE)
    for i in range(12):
        prompt, completion = 200 + 150 * i, 10 + 7 * (i % 5)
        request = {"model_identity": identity, "messages": [{"role": "user", "content": str(i)}]}
        cache.put(cache_key(request), request, "x", prompt, completion, seconds(prompt, completion))


def _hirag_study(settings, done: int = 0) -> None:
    """Committed hirag records (2 calls, 700 in / 70 out per question); ``done`` answered."""
    old = [
        {"id": f"o{i}", "method": "hirag", "llm_calls": 2, "input_tokens": 700, "output_tokens": 70}
        for i in range(3)
    ]
    _write(settings.results_dir / "other-n5-s0" / "hirag.jsonl", old)
    ids = [q.id for q in make_slice(load_dataset("toy"), 8).questions]
    _write(results_path("toy-n8-s0", "hirag", settings), [dict(old[0], id=i) for i in ids[:done]])


def test_each_endpoint_identity_is_priced_with_its_own_recorded_calls(settings) -> None:
    fast, slow = _remote(settings, "fast"), _remote(settings, "slow")
    _record_calls(settings, endpoint_identity(fast), lambda p, c: 0.2 + p / 1000 + c / 100)
    _record_calls(settings, endpoint_identity(slow), lambda p, c: 1.0 + p / 100 + c / 10)
    _hirag_study(settings)
    speed = throughput(fast, allow_probe=False)
    assert speed.source == f"measured on 12 calls of {REMOTE}#fast"
    assert speed.call_s == pytest.approx(0.2)
    assert (speed.prompt_tps, speed.gen_tps) == (pytest.approx(1000), pytest.approx(100))
    hours = {}
    for model, configured in (("fast", fast), ("slow", slow)):
        table = estimate_study(["hirag"], "toy", 8, concurrency=1, settings=configured)
        hours[model] = table.loc[0, "hours"]
        assert table.loc[0, "speed from"] == f"measured on 12 calls of {REMOTE}#{model}"
    # 8 questions x (2 calls, 700 in, 70 out), one at a time
    assert hours["fast"] == round(8 * (2 * 0.2 + 0.7 + 0.7) / 3600, 2)
    assert hours["slow"] == round(8 * (2 * 1.0 + 7 + 7) / 3600, 2) > hours["fast"]


def test_a_few_recorded_calls_scale_the_assumed_rates(settings) -> None:
    remote = _remote(settings, "few")
    identity = endpoint_identity(remote)
    cache = ResponseCache(settings.cache_dir / CACHE_FILE)
    request = {"model_identity": identity, "messages": []}
    assumed = 700 / ASSUMED_PROMPT_TPS + 13 / ASSUMED_GEN_TPS  # seconds at the assumed rates
    cache.put(cache_key(request), request, "x", 700, 13, assumed / 2)  # twice as fast
    speed = throughput(remote, allow_probe=False)
    assert speed.source == f"measured on 1 call of {identity}"
    assert speed.prompt_tps == pytest.approx(2 * ASSUMED_PROMPT_TPS)
    assert speed.gen_tps == pytest.approx(2 * ASSUMED_GEN_TPS)


def test_requests_in_flight_divide_the_wall_time(settings) -> None:
    remote = _remote(settings, "fast", concurrency=4)
    _record_calls(settings, endpoint_identity(remote), lambda p, c: 30 + p / 10 + c)
    _hirag_study(settings)
    one = estimate_study(["hirag"], "toy", 8, concurrency=1, settings=remote)
    four = estimate_study(["hirag"], "toy", 8, settings=remote)  # llm.concurrency
    assert four.attrs["in_flight"] == 4 and one.attrs["in_flight"] == 1
    assert one.loc[0, "hours"] == pytest.approx(4 * four.loc[0, "hours"], abs=0.02)
    assert in_flight(settings, 8) == 1  # the local one-slot server queues the rest
    assert in_flight(remote, 16) == 4  # the client never sends more than llm.concurrency
    assert "4 request(s) in flight" in estimate_text(four)


def test_an_unknown_method_is_rejected_in_one_line(settings) -> None:
    with pytest.raises(ValueError, match=r"^unknown method 'hriag' \(every method: ace-lab"):
        estimate_study(["hirag", "hriag"], "toy", 8, settings=settings)


class _ScriptedEndpoint:
    """An OpenAI-shaped client: every completion takes 50 ms, 20 prompt + 8 generated tokens."""

    def __init__(self) -> None:
        self.calls = 0
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))

    def create(self, **kwargs) -> SimpleNamespace:
        self.calls += 1
        time.sleep(0.05)
        message = SimpleNamespace(message=SimpleNamespace(content="Paris."))
        usage = SimpleNamespace(prompt_tokens=20, completion_tokens=8)
        return SimpleNamespace(choices=[message], usage=usage)


def test_with_no_recorded_call_one_probe_prices_the_endpoint(settings) -> None:
    remote = _remote(settings, "new")
    endpoint = _ScriptedEndpoint()
    llm = LLM(remote, client=endpoint, model_identity=endpoint_identity(remote))
    _hirag_study(settings)
    table = estimate_study(["hirag"], "toy", 8, settings=remote, llm=llm)
    speed = table.attrs["throughput"]
    source = speed.source
    assert endpoint.calls == 1
    # The rates are the probe's own (its wall time depends on the machine's load, so the test
    # checks where they come from, not how fast they are).
    assert (speed.gen_tps, speed.prompt_tps) != (ASSUMED_GEN_TPS, ASSUMED_PROMPT_TPS)
    # the remote endpoint's requests in flight divide the time
    flight = table.attrs["in_flight"]
    assert table.loc[0, "hours"] == round(speed.seconds(16, 5600, 560) / flight / 3600, 2)
    assert source.startswith(f"probe: 1 call of {REMOTE}#new cost 20 prompt + 8 generated")
    assert "probe: 1 call" in estimate_text(table)
    # The probe was cached with its latency: the next estimate measures, it does not probe.
    again = throughput(remote, llm=llm)
    assert endpoint.calls == 1 and again.source == f"measured on 1 call of {REMOTE}#new"


def test_nothing_left_to_run_asks_no_endpoint(settings) -> None:
    remote = _remote(settings, "new")
    endpoint = _ScriptedEndpoint()
    llm = LLM(remote, client=endpoint, model_identity=endpoint_identity(remote))
    _hirag_study(settings, done=8)
    table = estimate_study(["hirag"], "toy", 8, settings=remote, llm=llm)
    assert endpoint.calls == 0 and table.loc[0, "hours"] == 0
    assert table.loc[0, "speed from"] == "nothing left to run"


def test_offline_the_estimate_falls_back_and_says_why(settings) -> None:
    # A remote endpoint that refuses the probe: the assumed rates, with the reason.
    speed = throughput(_remote(settings, "gone"))
    assert speed.source.startswith("assumed (not measured; no recorded call of")
    assert "probe failed: " in speed.source
    # The local tier with no server running: no server is started, nothing probed.
    local = throughput(settings)
    assert "no local server running to probe" in local.source
    assert not (settings.cache_dir / "llm_server").exists()


def test_a_composition_never_run_is_priced_as_the_sum_of_its_parts(settings) -> None:
    settings = settings.with_llm(serving=ServingOptions(backend="xllamacpp"))
    for method, calls in (("mosaic", 2), ("ace-full", 5)):
        cost = {"llm_calls": calls, "input_tokens": 100 * calls, "output_tokens": 10 * calls}
        rows = [{"id": f"o{i}", "method": method, **cost} for i in range(2)]
        _write(settings.results_dir / "toy-n8-s0" / f"{method}.jsonl", rows)

    table = estimate_study(["mosaic>ace-full", "hipporag>ace-full"], "toy", 8, settings=settings)
    composed = table.set_index("method").loc["mosaic>ace-full"]
    assert composed["LLM calls"] == 8 * 7 and composed["input tokens"] == 8 * 700
    assert composed["cost from"].startswith("sum of parts, an upper bound: mosaic (toy-n8-s0)")
    # a part without a recorded run leaves the composition unpriced
    assert table.set_index("method").loc["hipporag>ace-full", "cost from"].startswith("no recorded")


def test_a_variant_never_run_is_priced_from_its_head(settings) -> None:
    cost = {"method": "ace-full", "llm_calls": 3, "input_tokens": 900, "output_tokens": 30}
    _write(settings.results_dir / "other-n5-s0" / "ace-full.jsonl", [cost | {"id": "o1"}])
    table = estimate_study(["ace-full:b1500", "mosaic:signals"], "toy", 8, settings=settings)
    row = table.set_index("method").loc["ace-full:b1500"]
    assert row["LLM calls"] == 8 * 3 and row["input tokens"] == 8 * 900
    assert row["cost from"] == "ace-full (other-n5-s0), an approximation of ace-full:b1500"
    assert table.set_index("method").loc["mosaic:signals", "cost from"].startswith("no recorded")
