"""ace_lab.llm.endpoint: what is retried, how long a retry waits, credentials, responses."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from types import SimpleNamespace

import httpx
import openai
import pytest

from ace_lab.bounded import ConfigError
from ace_lab.config import LLMSettings
from ace_lab.llm.endpoint import (
    MalformedResponse,
    RetryPolicy,
    completion_parts,
    describe,
    is_transient,
    openai_client,
    retry_after,
    split_credentials,
)

REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx.Response(status, headers=headers or {}, request=REQUEST)
    return openai.APIStatusError(f"status {status}", response=response, body=None)


# ------------------------------------------------------------------------------ what is retried
@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504])
def test_statuses_that_may_succeed_later_are_transient(status):
    assert is_transient(status_error(status))


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(status):
    assert not is_transient(status_error(status))


def test_dropped_connections_timeouts_and_unusable_bodies_are_transient():
    assert is_transient(openai.APIConnectionError(request=REQUEST))
    assert is_transient(openai.APITimeoutError(request=REQUEST))
    assert is_transient(MalformedResponse("no choices"))
    with pytest.raises(json.JSONDecodeError) as truncated:
        json.loads('{"choices": [{"mess')
    assert is_transient(truncated.value)
    assert not is_transient(ValueError("a bug"))


# ------------------------------------------------------------------------------ waits
def test_retry_after_reads_seconds_milliseconds_and_http_dates():
    assert retry_after(status_error(429, {"Retry-After": "2.5"})) == 2.5
    assert retry_after(status_error(429, {"retry-after-ms": "150"})) == 0.15
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 < retry_after(status_error(429, {"Retry-After": later})) <= 30
    assert retry_after(status_error(429, {"Retry-After": "soon"})) is None
    assert retry_after(status_error(429)) is None
    assert retry_after(ValueError("no response")) is None


def test_waits_back_off_exponentially_and_honour_retry_after_within_the_cap():
    policy = RetryPolicy(retries=4, backoff_s=0.5, wait_max_s=3.0)
    drop = openai.APIConnectionError(request=REQUEST)
    assert [policy.wait(k, drop) for k in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3.0]
    assert policy.wait(1, status_error(429, {"Retry-After": "2"})) == 2.0
    assert policy.wait(1, status_error(429, {"Retry-After": "3600"})) == 3.0  # capped
    assert policy.attempts == 5


def test_the_policy_comes_from_the_settings():
    policy = RetryPolicy.from_settings(
        LLMSettings(max_retries=2, retry_backoff_s=0.1, retry_wait_max_s=7)
    )
    assert policy == RetryPolicy(2, 0.1, 7.0) and policy.attempts == 3
    with pytest.raises(ConfigError, match="max_retries must be in"):
        LLMSettings(max_retries=-1)  # refused where it is set, not clamped later


# ------------------------------------------------------------------------------ responses
def _response(choices, usage=None):
    return SimpleNamespace(choices=choices, usage=usage)


def test_a_response_without_a_completion_is_malformed():
    for bad in (_response([]), _response(None), "a string", _response([SimpleNamespace()])):
        with pytest.raises(MalformedResponse):
            completion_parts(bad)


def test_completion_parts_reads_text_and_usage():
    usage = SimpleNamespace(
        prompt_tokens=5,
        completion_tokens=2,
        prompt_tokens_details=SimpleNamespace(cached_tokens=3),
    )
    message = SimpleNamespace(content="hi there")
    assert completion_parts(_response([SimpleNamespace(message=message)], usage)) == (
        "hi there",
        5,
        2,
        3,
    )
    empty = SimpleNamespace(message=SimpleNamespace(content=None))
    assert completion_parts(_response([empty])) == ("", 0, 0, 0)


def test_a_lone_surrogate_in_a_completion_becomes_a_replacement_character():
    message = SimpleNamespace(content='{"a": "x\ud800y"}')
    text = completion_parts(_response([SimpleNamespace(message=message)]))[0]
    assert text == '{"a": "x\ufffdy"}'
    text.encode("utf-8")  # what the cache, archives and results files do


# ------------------------------------------------------------------------------ credentials
def test_split_credentials_takes_userinfo_out_of_the_url():
    assert split_credentials("https://u%40x:p%3Aw@host:8443/v1") == (
        "https://host:8443/v1",
        "u@x:p:w",
    )
    assert split_credentials("https://token@host/v1") == ("https://host/v1", "token:")
    assert split_credentials("http://[::1]:8000/v1") == ("http://[::1]:8000/v1", None)
    assert split_credentials("http://u:p@[::1]:8000/v1") == ("http://[::1]:8000/v1", "u:p")


def test_the_openai_client_gets_credentials_as_a_basic_header_not_in_its_url():
    client = openai_client("https://alice:secret@host/v1", "sk-key", 5.0)
    assert "secret" not in str(client.base_url)
    assert client.default_headers["Authorization"] == "Basic YWxpY2U6c2VjcmV0"
    assert client.max_retries == 0
    plain = openai_client("https://host/v1", "sk-key", 5.0)
    assert "Authorization" not in plain.default_headers  # the key goes as the usual Bearer
    assert plain.auth_headers == {"Authorization": "Bearer sk-key"}


def test_describe_masks_url_credentials():
    text = describe(RuntimeError("cannot reach https://u:topsecret@host/v1"))
    assert text == "RuntimeError: cannot reach https://***@host/v1"
    assert describe(RuntimeError()) == "RuntimeError"
