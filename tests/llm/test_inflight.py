"""ace_lab.llm.inflight: requests in flight to a remote endpoint (overlap up to the limit, never
beyond), one at a time for the local server, 429 + Retry-After, every record written once."""

from __future__ import annotations

from dataclasses import replace

import httpx
import openai
import pytest

from ace_lab.config import Settings
from ace_lab.eval.studies.runner import run
from ace_lab.eval.studies.study import read_jsonl, results_path
from ace_lab.llm import LLM
from ace_lab.llm.inflight import InFlight, as_finished, default_concurrency, request_limit
from tests.support.inflight import Overlap, remote
from tests.support.scripted import ScriptedClient

REQUEST = httpx.Request("POST", "http://remote.invalid/v1/chat/completions")


def slow_llm(settings: Settings, delay_s: float = 0.05) -> tuple[LLM, Overlap]:
    overlap = Overlap()
    client = ScriptedClient(overlap.script, delay_s=delay_s, in_flight=overlap.served)
    return LLM(settings, client=client), overlap


def ask(llm: LLM, i: int) -> str:
    return llm.chat([{"role": "user", "content": f"question {i}"}], tag="t.inflight").text


# ---------------------------------------------------------------------------------- limits
def test_limits_per_endpoint(settings):
    assert request_limit(settings.llm) is None  # the local server queues by itself
    assert default_concurrency(settings) == 1
    assert request_limit(remote(settings, 16).llm) == 16
    assert default_concurrency(remote(settings, 16)) == 16
    with pytest.raises(ValueError, match="in-flight limit"):
        InFlight(0)


def test_remote_requests_overlap_up_to_the_limit_and_never_beyond(settings):
    llm, overlap = slow_llm(remote(settings, 4))
    # 12 threads ask at once (as a run's questions each mapping their own calls would)
    texts = llm.map(lambda i: ask(llm, i), range(24), max_workers=12)
    assert len(texts) == 24
    assert overlap.peak == 4  # reached: the requests overlapped
    assert llm.inflight.peak == 4  # and the gate never let a fifth through
    assert llm.inflight.current == 0


def test_local_endpoint_runs_keep_one_question_in_flight(settings, toy_graph):
    llm, overlap = slow_llm(settings, delay_s=0.02)
    frame = run(
        "naive",
        "toy",
        8,
        study="local1",
        settings=settings,
        llm=llm,
        graph=toy_graph,
        progress=False,
        limit=4,
    )
    assert len(frame) == 4
    assert overlap.peak == 1
    assert llm.inflight.limit is None  # no gate: the server's own queue holds the rest


def test_remote_run_defaults_to_the_setting_and_writes_each_record_once(settings, toy_graph):
    settings = remote(settings, 4)
    llm, overlap = slow_llm(settings, delay_s=0.05)
    frame = run(
        "naive",
        "toy",
        8,
        study="remote4",
        settings=settings,
        llm=llm,
        graph=toy_graph,
        progress=False,
    )
    assert overlap.peak == 4
    ids = [rec["id"] for rec in read_jsonl(results_path("remote4", "naive", settings))]
    assert len(ids) == len(set(ids)) == len(frame) == 8
    again = run(
        "naive",
        "toy",
        8,
        study="remote4",
        settings=settings,
        llm=llm,
        graph=toy_graph,
        progress=False,
    )
    assert len(read_jsonl(results_path("remote4", "naive", settings))) == len(again) == 8


# ------------------------------------------------------------------------------------- 429
def rate_limited(seconds: str) -> openai.RateLimitError:
    response = httpx.Response(429, headers={"Retry-After": seconds}, request=REQUEST)
    return openai.RateLimitError("slow down", response=response, body=None)


def test_429_waits_what_retry_after_asks_without_holding_a_place(settings):
    settings = replace(settings, llm=replace(remote(settings, 1).llm, retry_wait_max_s=60.0))
    client = ScriptedClient([rate_limited("7"), "fine"])
    llm = LLM(settings, client=client)
    waits: list[tuple[float, int]] = []
    llm._sleep = lambda s: waits.append((s, llm.inflight.current))
    assert ask(llm, 0) == "fine"
    assert waits == [(7.0, 0)]  # Retry-After honoured; its place was free meanwhile
    assert len(client.requests) == 2
    assert llm.cache is not None and len(llm.cache) == 1  # the answer, never the 429


def test_429_waits_are_capped_and_a_lasting_429_is_not_cached(settings):
    settings = replace(
        settings, llm=replace(remote(settings, 2).llm, retry_wait_max_s=0.5, max_retries=2)
    )
    client = ScriptedClient([rate_limited("30")] * 3)
    llm = LLM(settings, client=client)
    waits: list[float] = []
    llm._sleep = waits.append
    with pytest.raises(Exception, match="3 attempts"):
        ask(llm, 0)
    assert waits == [0.5, 0.5]
    assert llm.cache is not None and len(llm.cache) == 0
    assert llm.inflight.current == 0


# -------------------------------------------------------------------------------- records
def test_as_finished_yields_every_item_once_and_failures_do_not_stop_others():
    def work(i: int) -> int:
        if i % 5 == 0:
            raise RuntimeError(f"item {i}")
        return i * i

    seen = list(as_finished(work, range(20), 4))
    assert sorted(item for item, _, _ in seen) == list(range(20))
    assert {item: out for item, out, exc in seen if exc is None} == {
        i: i * i for i in range(20) if i % 5
    }
    assert sorted(item for item, _, exc in seen if exc is not None) == [0, 5, 10, 15]
