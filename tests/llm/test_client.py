"""ace_lab.llm.client: chat caching rules, retries, the ledger, concurrency, endpoint naming."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from dataclasses import replace
from types import SimpleNamespace

import httpx
import openai
import pytest

from ace_lab.evidence import Trace
from ace_lab.llm import LLM, LLMError, cache_key
from ace_lab.llm import models as llm_models
from tests.support.scripted import CHAT_MESSAGES as MESSAGES
from tests.support.scripted import ScriptedClient
from tests.support.scripted import scripted_llm as _llm


def test_request_carries_local_model_sha(settings):
    llm = _llm(settings, [])
    assert llm_models.TIERS["smollm135m"].sha256 in llm.request(MESSAGES)["model_identity"]


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


# --------------------------------------------------------------- concurrency
def test_map_runs_calls_concurrently_and_attaches_to_the_trace(settings):
    # Every reply waits until all four calls are in flight at once: a sequential map
    # breaks the barrier instead of merely running slower, so no wall-clock bound is needed.
    all_four_in_flight = threading.Barrier(4, timeout=10)
    llm = _llm(
        settings,
        lambda kw: kw["messages"][-1]["content"].upper(),
        in_flight=all_four_in_flight.wait,
    )
    trace = Trace()
    prompts = [[{"role": "user", "content": f"q{i}"}] for i in range(4)]
    with trace.step("branches"):
        results = llm.map(lambda m: llm.chat(m, tag="b").text, prompts, max_workers=4)
    assert results == ["Q0", "Q1", "Q2", "Q3"]
    assert len(trace.steps[0].llm_calls) == 4


# ------------------------------------------------------------------ endpoint
def test_remote_endpoint_needs_a_model_name(settings):
    from dataclasses import replace

    remote = replace(settings, llm=replace(settings.llm, base_url="http://127.0.0.1:9/v1"))
    with pytest.raises(Exception, match="ACE_LAB_LLM_MODEL"):
        LLM(remote)
    named = replace(remote, llm=replace(remote.llm, model="m"))
    assert LLM(named).model_identity == "http://127.0.0.1:9/v1#m"


def test_a_cache_hit_reports_the_model_time_it_cost_when_made(settings):
    llm = _llm(settings, ["an answer"])
    first = llm.chat(MESSAGES, tag="t")
    again = llm.chat(MESSAGES, tag="t")
    assert again.cache_hit and again.latency_s < first.latency_s + 1
    assert again.response_latency_s == pytest.approx(first.latency_s)
    calls = llm.ledger.calls
    assert calls[1].response_latency_s == pytest.approx(calls[0].latency_s, abs=1e-3)


# ------------------------------------------------------------------ retries
REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def drop() -> openai.APIConnectionError:
    return openai.APIConnectionError(request=REQUEST)


def rate_limited(retry_after: str) -> openai.RateLimitError:
    response = httpx.Response(429, headers={"Retry-After": retry_after}, request=REQUEST)
    return openai.RateLimitError("slow down", response=response, body=None)


def remote(settings, url="http://127.0.0.1:9/v1", **llm):
    """``settings`` pointed at a remote endpoint (model ``m``), with LLM settings ``llm``."""
    return replace(settings, llm=replace(settings.llm, base_url=url, model="m", **llm))


def recording_llm(settings, script, **llm):
    """An LLM whose retry waits are recorded instead of slept (in ``llm.waits``)."""
    out = LLM(remote(settings, **llm), client=ScriptedClient(script))
    out.waits = []
    out._sleep = out.waits.append
    return out


def test_max_retries_counts_retries_after_the_first_attempt(settings):
    # Regression: max_retries=1 used to mean one attempt in all, i.e. no retry at all.
    llm = recording_llm(settings, [drop(), "recovered"], max_retries=1)
    assert llm.chat(MESSAGES, tag="t").text == "recovered"
    assert len(llm.client().requests) == 2
    assert llm.ledger.calls[-1].attempt == 2 and llm.ledger.summary().loc["t", "retries"] == 1


def test_persistent_transient_errors_stop_after_max_retries_with_a_named_error(settings):
    llm = recording_llm(
        settings, lambda kw: drop(), url="https://u:pw-SENTINEL@llm.example/v1", max_retries=2
    )
    with pytest.raises(LLMError) as failure:
        llm.chat(MESSAGES, tag="ace.router")
    message = str(failure.value)
    assert "'ace.router'" in message and "https://***@llm.example/v1" in message
    assert "SENTINEL" not in message and "3 attempts" in message
    assert isinstance(failure.value.__cause__, openai.APIConnectionError)
    assert len(llm.client().requests) == 3 and llm.waits == [0.5, 1.0]
    assert len(llm.cache) == 0
    [call] = llm.ledger.calls
    assert call.error and "SENTINEL" not in call.error and call.attempt == 3


def test_retry_after_is_honoured_within_the_cap(settings):
    llm = recording_llm(
        settings,
        [rate_limited("2"), rate_limited("3600"), "ok"],
        retry_wait_max_s=5.0,
    )
    assert llm.chat(MESSAGES, tag="t").text == "ok"
    assert llm.waits == [2.0, 5.0]  # asked 2 s: waited 2 s; asked an hour: waited the cap


def test_each_retry_is_logged_with_the_calls_tag(settings, caplog):
    llm = recording_llm(settings, [drop(), rate_limited("1"), "ok"])
    with caplog.at_level(logging.WARNING, logger="ace_lab.llm.client"):
        llm.chat(MESSAGES, tag="graph.extract")
    retries = [r for r in caplog.records if getattr(r, "llm_tag", None) == "graph.extract"]
    assert [r.llm_attempt for r in retries] == [1, 2]
    assert "'graph.extract'" in retries[0].getMessage() and "127.0.0.1:9" in retries[0].getMessage()
    assert "APIConnectionError" in retries[0].getMessage()
    assert "RateLimitError" in retries[1].getMessage()


def fake_client(responses):
    """A client whose ``create`` returns the next of ``responses`` (raising exceptions)."""
    requests = []

    def create(**kwargs):
        requests.append(kwargs)
        item = responses.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item

    return SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))


def reply(text):
    return SimpleNamespace(
        choices=[SimpleNamespace(message=SimpleNamespace(content=text))], usage=None
    )


def test_empty_choices_and_truncated_bodies_are_retried_never_cached(settings):
    # Regression: {"choices": []} raised IndexError and a truncated body a bare JSONDecodeError,
    # neither retried nor naming the call.
    with pytest.raises(json.JSONDecodeError) as truncated:
        json.loads('{"id": "x", "choices": [{"mess')
    client = fake_client([SimpleNamespace(choices=[], usage=None), truncated.value, reply("ok")])
    llm = LLM(remote(settings), client=client)
    llm._sleep = lambda s: None
    assert llm.chat(MESSAGES, tag="t").text == "ok"
    assert llm.ledger.calls[-1].attempt == 3

    failing = fake_client([SimpleNamespace(choices=[])] * 2)
    dead = LLM(remote(settings, max_retries=1), client=failing)
    dead._sleep = lambda s: None
    other = [{"role": "user", "content": "another question"}]
    with pytest.raises(LLMError, match="no choices"):
        dead.chat(other, tag="t")
    assert dead.cache.get(cache_key(dead.request(other))) is None


def test_a_non_transient_error_is_not_retried_and_names_the_call(settings):
    bad = openai.BadRequestError("bad", response=httpx.Response(400, request=REQUEST), body=None)
    llm = recording_llm(settings, [bad, "unused"])
    with pytest.raises(openai.BadRequestError) as failure:
        llm.chat(MESSAGES, tag="judge")
    assert len(llm.client().requests) == 1 and llm.waits == []
    assert any("'judge'" in note and "127.0.0.1:9" in note for note in failure.value.__notes__)


def test_map_cancels_the_items_not_started_after_a_failure(settings):
    llm = recording_llm(settings, lambda kw: time.sleep(0.05) or drop(), max_retries=0)
    prompts = [[{"role": "user", "content": f"q{i}"}] for i in range(40)]
    with pytest.raises(LLMError):
        llm.map(lambda m: llm.chat(m, tag="batch"), prompts, max_workers=2)
    assert len(llm.client().requests) < 10  # not all 40 items against a dead endpoint


# ------------------------------------------------------------------ cache keys and secrets
def test_integer_and_float_sampling_values_share_one_cache_key(settings):
    # Regression: temperature=0 and temperature=0.0 were two requests with two cache entries.
    llm = _llm(settings, ["a", "b"])
    assert cache_key(llm.request(MESSAGES, temperature=0)) == cache_key(
        llm.request(MESSAGES, temperature=0.0)
    )
    llm.chat(MESSAGES, tag="t", temperature=0, top_p=1, seed=0)
    again = llm.chat(MESSAGES, tag="t", temperature=0.0, top_p=1.0)
    assert again.cache_hit and again.text == "a"


def test_url_credentials_stay_out_of_the_identity_and_the_cache(settings):
    # Regression: https://user:pass@host/v1 was the model identity, so the password was
    # written to the cache's model and request columns (and to manifests).
    url = "https://alice:pw-SENTINEL@llm.example/v1?api_key=sk-SENTINEL"
    llm = LLM(remote(settings, url=url), client=ScriptedClient(["ok"]))
    assert llm.model_identity.endswith(":https://***@llm.example/v1?api_key=***#m")
    assert llm.endpoint == "https://***@llm.example/v1?api_key=***"
    llm.chat(MESSAGES, tag="t")
    rows = sqlite3.connect(llm.cache.path).execute("SELECT * FROM responses").fetchall()
    assert rows and not any("SENTINEL" in str(value) for row in rows for value in row)


def test_url_credentials_authenticate_as_basic_auth_and_are_never_logged(settings, caplog):
    from tests.reliability.fault_proxy import FakeUpstream

    with FakeUpstream() as upstream:
        url = upstream.url.replace("http://", "http://alice:pw-SENTINEL@")
        llm = LLM(remote(settings, url=url, api_key="sk-SENTINEL"))
        with caplog.at_level(logging.DEBUG):
            assert llm.chat(MESSAGES, tag="t").text.startswith("answer-")
    assert upstream.headers[-1]["authorization"] == "Basic YWxpY2U6cHctU0VOVElORUw="
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "HTTP Request" in logged and "SENTINEL" not in logged


def test_the_ledger_masks_credentials_in_any_error_it_records():
    from ace_lab.evidence import LLMCall
    from ace_lab.llm import Ledger

    ledger = Ledger()
    ledger.record(LLMCall("t", "m", 0, 0, 0.1, False, error="to https://u:pw-SENTINEL@h/v1"))
    assert ledger.calls[0].error == "to https://***@h/v1"
    assert "retries" in ledger.summary().columns


def test_an_injected_client_never_shares_the_real_models_cache(settings):
    scripted = _llm(settings, ["scripted reply"])
    real = LLM(settings)  # never called: only its identity is compared
    assert scripted.model == real.model
    assert scripted.model_identity == f"injected:ScriptedClient:{real.model_identity}"
    assert scripted.chat(MESSAGES, tag="t").text == "scripted reply"
    assert real.cache is not None and real.cache.get(cache_key(real.request(MESSAGES))) is None
    named = LLM(settings, client=ScriptedClient([]), model_identity="local:x:gguf:abc")
    assert named.model_identity == "local:x:gguf:abc"
