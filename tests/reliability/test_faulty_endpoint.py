"""A faulty endpoint: bounded, logged retries at 20 % faults; a clear error, nothing written and
a clean resume at 100 %. Also checks the fault proxy itself does what each fault says."""

from __future__ import annotations

import openai
import pytest

from tests.reliability.fault_proxy import FAULTS, FakeUpstream, FaultProxy, faulty_endpoint
from tests.reliability.faulty_endpoint import measure
from tests.reliability.scale import full_scale

pytestmark = pytest.mark.reliability


def test_a_faulty_endpoint_holds_at_20_and_100_percent_faults() -> None:
    rows = measure(full_scale())
    assert [r["property"] for r in rows] == ["endpoint at 20 % faults", "endpoint at 100 % faults"]
    for row in rows:
        assert row["failed"] == 0, row["note"]
        assert row["held"] == row["attempts"] >= 14, row["note"]


#: What a client with no retries of its own sees for each fault.
SEEN_AS = {
    "timeout": openai.APITimeoutError,
    "rate_limit": openai.RateLimitError,
    "server_error": openai.InternalServerError,
    "reset": openai.APIConnectionError,
    "truncated": ValueError,  # the openai client cannot parse half a body
}


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_reaches_the_client_as_that_fault(fault: str) -> None:
    upstream, proxy = faulty_endpoint(1.0, faults=(fault,), hang_s=1.0, retry_after_s=7)
    try:
        client = openai.OpenAI(base_url=proxy.url, api_key="k", timeout=0.3, max_retries=0)
        ask = {"model": "fake", "messages": [{"role": "user", "content": "hi"}]}
        if fault == "empty_choices":
            assert client.chat.completions.create(**ask).choices == []
        else:
            with pytest.raises(SEEN_AS[fault]) as raised:
                client.chat.completions.create(**ask)
            if fault == "rate_limit":
                assert raised.value.response.headers["retry-after"] == "7"
        assert [s.fault for s in proxy.seen] == [fault]
    finally:
        proxy.stop()
        upstream.stop()


def test_faults_are_a_function_of_the_request_not_of_arrival_order() -> None:
    with FakeUpstream() as upstream:
        one = FaultProxy(upstream.url, rate=0.5, seed=3)
        two = FaultProxy(upstream.url, rate=0.5, seed=3)
        keys = [f"k{i}" for i in range(50)]
        first = [one._decide(k, "p") for k in keys]
        second = [two._decide(k, "p") for k in reversed(keys)][::-1]
        assert first == second and 10 < sum(f is not None for f in first) < 40
        assert FaultProxy(upstream.url, rate=0.0)._decide("k0", "p") is None


def test_the_upstream_answers_and_once_forgotten_stops_by_itself() -> None:
    # The lifetime leaves a loaded machine time to serve the first request; the stop is then
    # awaited (bounded) rather than assumed after a fixed sleep.
    upstream = FakeUpstream(lifetime_s=3.0).start()
    client = openai.OpenAI(base_url=upstream.url, api_key="k", timeout=2, max_retries=0)
    reply = client.chat.completions.create(
        model="fake", messages=[{"role": "user", "content": "hi"}]
    )
    assert reply.choices[0].message.content.startswith("answer-")
    assert upstream.closed.wait(timeout=60), "the forgotten upstream never stopped itself"
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="fake", messages=[{"role": "user", "content": "x"}])
