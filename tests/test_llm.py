"""ace_lab.llm: cache keys, caching rules, JSON fallbacks, retries, concurrency, model tiers."""

from __future__ import annotations

import multiprocessing as mp
import time
from pathlib import Path

import httpx
import openai
import pytest
from pydantic import BaseModel

from ace_lab.evidence import Trace
from ace_lab.llm import LLM, ResponseCache, cache_key, extract_json
from ace_lab.llm import models as llm_models
from ace_lab.llm.models import ModelError, ModelTier, prepare_model
from tests.conftest import ScriptedClient

MESSAGES = [{"role": "system", "content": "fixed"}, {"role": "user", "content": "q"}]


class City(BaseModel):
    city: str
    country: str


def _llm(settings, script, **kw) -> LLM:
    return LLM(settings, client=ScriptedClient(script, **kw))


# ------------------------------------------------------------------ cache key
BASE_REQUEST = {
    "model_identity": "local:x:gguf:abc",
    "messages": MESSAGES,
    "temperature": 0.0,
    "top_p": 1.0,
    "max_tokens": 64,
    "stop": None,
    "seed": 0,
    "response_format": None,
}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("model_identity", "local:x:gguf:def"),
        ("messages", [{"role": "user", "content": "other"}]),
        ("temperature", 0.7),
        ("top_p", 0.9),
        ("max_tokens", 65),
        ("stop", ["\n"]),
        ("seed", 1),
        ("response_format", {"type": "json_object"}),
    ],
)
def test_every_request_field_changes_the_key(field, value):
    changed = dict(BASE_REQUEST, **{field: value})
    assert cache_key(changed) != cache_key(BASE_REQUEST)


def test_key_is_stable_under_dict_order():
    reordered = dict(reversed(list(BASE_REQUEST.items())))
    assert cache_key(reordered) == cache_key(BASE_REQUEST)


def test_request_carries_local_model_sha(settings):
    llm = _llm(settings, [])
    assert llm_models.TIERS["smollm135m"].sha256 in llm.request(MESSAGES)["model_identity"]


def test_json_schema_changes_the_key(settings):
    class Other(BaseModel):
        city: str

    llm = _llm(settings, [])
    from ace_lab.llm.client import schema_format

    a = llm.request(MESSAGES, response_format=schema_format(City))
    b = llm.request(MESSAGES, response_format=schema_format(Other))
    assert cache_key(a) != cache_key(b)


# ------------------------------------------------------------------- caching
def test_second_identical_call_is_a_cache_hit_with_no_tokens(settings):
    llm = _llm(settings, ["Paris", "Paris again"])
    first = llm.chat(MESSAGES, tag="t")
    second = llm.chat(MESSAGES, tag="t")
    assert not first.cache_hit and first.prompt_tokens == 11
    assert second.cache_hit and second.text == "Paris"
    assert (second.prompt_tokens, second.completion_tokens) == (0, 0)
    assert len(llm.client().requests) == 1
    summary = llm.ledger.summary().loc["t"]
    assert (summary["calls"], summary["model_calls"], summary["cache_hits"]) == (2, 1, 1)


def test_server_prompt_cache_reuse_is_recorded_for_model_calls_only(settings):
    llm = _llm(settings, ["Paris"], server_cached_tokens=7)
    first = llm.chat(MESSAGES, tag="t")
    again = llm.chat(MESSAGES, tag="t")
    assert first.server_cached_tokens == 7 and again.server_cached_tokens == 0
    assert [c.server_cached_tokens for c in llm.ledger.calls] == [7, 0]


def test_changing_temperature_misses_the_cache(settings):
    llm = _llm(settings, ["a", "b"])
    llm.chat(MESSAGES, tag="t")
    other = llm.chat(MESSAGES, tag="t", temperature=0.5)
    assert not other.cache_hit and other.text == "b"


def test_bypass_neither_reads_nor_writes(settings):
    llm = _llm(settings, ["a", "b", "c"])
    llm.chat(MESSAGES, tag="t")
    assert llm.chat(MESSAGES, tag="t", use_cache=False).text == "b"
    assert llm.chat(MESSAGES, tag="t").text == "a"


def test_exceptions_are_not_cached(settings):
    boom = openai.BadRequestError(
        "bad", response=httpx.Response(400, request=httpx.Request("POST", "http://x")), body=None
    )
    llm = _llm(settings, [boom, "ok"])
    with pytest.raises(openai.BadRequestError):
        llm.chat(MESSAGES, tag="t")
    assert llm.chat(MESSAGES, tag="t").text == "ok"
    assert llm.ledger.summary().loc["t", "failures"] == 1


def test_empty_output_is_not_cached(settings):
    llm = _llm(settings, ["", "  ", "x"])
    assert llm.chat(MESSAGES, tag="t").text == ""
    assert llm.chat(MESSAGES, tag="t").text.strip() == ""
    assert llm.chat(MESSAGES, tag="t").text == "x"
    assert llm.chat(MESSAGES, tag="t").cache_hit


def test_transient_errors_are_retried(settings):
    drop = openai.APIConnectionError(request=httpx.Request("POST", "http://x"))
    llm = _llm(settings, [drop, "recovered"])
    assert llm.chat(MESSAGES, tag="t").text == "recovered"
    assert len(llm.client().requests) == 2


def _write_rows(path: str, worker: int, n: int) -> None:
    cache = ResponseCache(path)
    for i in range(n):
        request = {"worker": worker, "i": i}
        cache.put(cache_key(request), request, f"{worker}-{i}", 1, 1)


def test_concurrent_writers_from_processes_and_threads(tmp_path):
    path = str(tmp_path / "c.sqlite")
    ResponseCache(path)
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_write_rows, args=(path, w, 60)) for w in range(3)]
    for p in procs:
        p.start()
    cache = ResponseCache(path)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda w: _write_rows(path, w, 60), range(10, 14)))
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert len(cache) == 7 * 60
    assert cache.get(cache_key({"worker": 2, "i": 59})).text == "2-59"


# ---------------------------------------------------------------------- json
def test_json_parses_and_validates(settings):
    llm = _llm(settings, ['```json\n{"city": "Paris", "country": "France"}\n```'])
    result = llm.json(MESSAGES, City, tag="j", default=City(city="?", country="?"))
    assert not result.fallback and result.value.city == "Paris" and result.attempts == 1
    assert llm.client().requests[0]["response_format"]["type"] == "json_schema"


def test_json_retries_then_falls_back_and_marks_trace(settings):
    llm = _llm(settings, ["not json", '{"city": 3}', "{broken"])
    trace = Trace()
    with trace.step("route"):
        result = llm.json(MESSAGES, City, tag="j", default=City(city="?", country="?"))
    assert result.fallback and result.attempts == 3 and result.value.city == "?"
    assert len(result.errors) == 3
    step = trace.steps[0]
    assert any("fell back" in note for note in step.notes)
    assert len(step.llm_calls) == 3
    # retries are different requests (seed, temperature), and invalid outputs were not cached
    seeds = [r["seed"] for r in llm.client().requests]
    assert seeds == [0, 1, 2]
    assert len(llm.cache) == 0


def test_json_recovers_on_a_later_attempt_and_caches_only_the_valid_one(settings):
    llm = _llm(settings, ["nope", '{"city": "Oslo", "country": "Norway"}'])
    result = llm.json(MESSAGES, City, tag="j", default=lambda: City(city="?", country="?"))
    assert not result.fallback and result.attempts == 2 and result.value.city == "Oslo"
    assert len(llm.cache) == 1


def test_json_object_mode_when_server_rejects_json_schema(settings):
    rejected = openai.BadRequestError(
        "response_format json_schema not supported",
        response=httpx.Response(400, request=httpx.Request("POST", "http://x")),
        body=None,
    )
    llm = _llm(settings, [rejected, '{"city": "Rome", "country": "Italy"}'])
    result = llm.json(MESSAGES, City, tag="j", default=City(city="?", country="?"))
    assert result.value.city == "Rome"
    second = llm.client().requests[1]
    assert second["response_format"] == {"type": "json_object"}
    assert '"city"' in second["messages"][0]["content"]  # schema moved into the instructions


@pytest.mark.parametrize(
    "text",
    ['{"a": 1}', 'Sure! {"a": 1} hope that helps', '```\n{"a": 1}\n```', ' \n{"a": 1}\n'],
)
def test_extract_json(text):
    assert extract_json(text) == {"a": 1}


# --------------------------------------------------------------- concurrency
def test_map_runs_calls_concurrently_and_attaches_to_the_trace(settings):
    llm = _llm(settings, lambda kw: kw["messages"][-1]["content"].upper(), delay_s=0.4)
    trace = Trace()
    prompts = [[{"role": "user", "content": f"q{i}"}] for i in range(4)]
    start = time.perf_counter()
    with trace.step("branches"):
        results = llm.map(lambda m: llm.chat(m, tag="b").text, prompts, max_workers=4)
    wall = time.perf_counter() - start
    assert results == ["Q0", "Q1", "Q2", "Q3"]
    assert wall < 1.0, f"4 × 0.4 s calls took {wall:.2f} s: not concurrent"
    assert len(trace.steps[0].llm_calls) == 4


# -------------------------------------------------------------------- models
def _fake_part_package(root: Path, name: str, payload: bytes) -> None:
    pkg = root / name
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "data" / "part01.bin").write_bytes(payload)


def test_prepare_model_joins_parts_and_verifies_sha(tmp_path, monkeypatch):
    import hashlib

    _fake_part_package(tmp_path, "acefake_part1", b"hello ")
    _fake_part_package(tmp_path, "acefake_part2", b"world")
    monkeypatch.syspath_prepend(str(tmp_path))
    parts = (("acefake_part1", "data/part01.bin"), ("acefake_part2", "data/part01.bin"))
    good = ModelTier(
        "fake", "", parts, hashlib.sha256(b"hello world").hexdigest(), "fake.gguf", "pip x"
    )
    monkeypatch.setitem(llm_models.TIERS, "fake", good)
    path = prepare_model("fake", tmp_path / "models")
    assert path.read_bytes() == b"hello world"
    assert prepare_model("fake", tmp_path / "models") == path  # verified marker reused

    bad = ModelTier("bad", "", parts, "0" * 64, "bad.gguf", "pip install bad-parts")
    monkeypatch.setitem(llm_models.TIERS, "bad", bad)
    with pytest.raises(ModelError, match="sha256"):
        prepare_model("bad", tmp_path / "models")


def test_missing_part_package_names_the_install_command(tmp_path, monkeypatch):
    tier = ModelTier("gone", "", (("no_such_pkg_x", "a.bin"),), "0" * 64, "g", "pip install g")
    monkeypatch.setitem(llm_models.TIERS, "gone", tier)
    with pytest.raises(ModelError, match="pip install g"):
        prepare_model("gone", tmp_path)


def test_unknown_tier_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="known tiers"):
        prepare_model("gpt-17", tmp_path)


def test_remote_endpoint_needs_a_model_name(settings):
    from dataclasses import replace

    remote = replace(settings, llm=replace(settings.llm, base_url="http://127.0.0.1:9/v1"))
    with pytest.raises(Exception, match="ACE_LAB_LLM_MODEL"):
        LLM(remote)
    named = replace(remote, llm=replace(remote.llm, model="m"))
    assert LLM(named).model_identity == "http://127.0.0.1:9/v1#m"


# ---------------------------------------------------------------- integration
@pytest.mark.integration
def test_local_server_real_call_then_cache_hit(settings):
    from ace_lab.llm import server

    llm = LLM(settings)
    try:
        first = llm.ping()
        assert not first.cache_hit and first.text.strip()
        assert first.prompt_tokens > 0 and first.completion_tokens > 0
        info = server.status(settings)
        assert info is not None and info.tier == "smollm135m"
        second = llm.ping()
        assert second.cache_hit and (second.prompt_tokens, second.completion_tokens) == (0, 0)
        hotter = llm.chat(llm.request(MESSAGES)["messages"], tag="t", temperature=0.9, seed=3)
        assert not hotter.cache_hit
        # a second client reuses the running server instead of starting another
        assert server.start(settings).pid == info.pid
    finally:
        assert server.stop(settings)
    assert server.status(settings) is None


def test_a_cache_hit_reports_the_model_time_it_cost_when_made(settings):
    llm = _llm(settings, ["an answer"])
    first = llm.chat(MESSAGES, tag="t")
    again = llm.chat(MESSAGES, tag="t")
    assert again.cache_hit and again.latency_s < first.latency_s + 1
    assert again.response_latency_s == pytest.approx(first.latency_s)
    calls = llm.ledger.calls
    assert calls[1].response_latency_s == pytest.approx(calls[0].latency_s, abs=1e-3)
