"""ace_lab.llm.structured: schema response_format, JSON parsing, retries and fallbacks."""

from __future__ import annotations

import httpx
import openai
import pytest
from pydantic import BaseModel

from ace_lab.evidence import Trace
from ace_lab.llm import cache_key, extract_json
from ace_lab.llm.structured import MAX_JSON_CHARS, JsonOutputError
from tests.support.scripted import CHAT_MESSAGES as MESSAGES
from tests.support.scripted import scripted_llm as _llm


class City(BaseModel):
    city: str
    country: str


def test_json_schema_changes_the_key(settings):
    class Other(BaseModel):
        city: str

    llm = _llm(settings, [])
    from ace_lab.llm.structured import schema_format

    a = llm.request(MESSAGES, response_format=schema_format(City))
    b = llm.request(MESSAGES, response_format=schema_format(Other))
    assert cache_key(a) != cache_key(b)


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


# ------------------------------------------------------------------ regressions (issue 13)

DEEP = "[" * 1000 + "]" * 1000
DEEP_OBJECT = '{"city": ' + "[" * 5000 + "]" * 5000 + ', "country": "x"}'


@pytest.mark.parametrize("text", [DEEP, DEEP_OBJECT, "[" * 100_000, "prose " + DEEP_OBJECT])
def test_deep_nesting_is_a_parse_failure_not_a_recursion_error(text):
    with pytest.raises(JsonOutputError, match="nested deeper"):
        extract_json(text)


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert extract_json('{"a": "' + "[" * 5000 + '\\"{"}') == {"a": "[" * 5000 + '"{'}


@pytest.mark.parametrize(
    "text",
    ['{"city": "\\ud800", "country": "x"}', '{"city": "Oslo", "\\udfff": 1}', '{"a": "\ud800"}'],
)
def test_lone_surrogates_are_refused(text):
    with pytest.raises(JsonOutputError, match="UTF-8"):
        extract_json(text)


def test_surrogate_pairs_are_fine():
    assert extract_json('{"a": "\\ud83d\\ude00"}') == {"a": "😀"}


def test_nan_and_oversized_outputs_are_refused():
    with pytest.raises(JsonOutputError):
        extract_json('{"a": NaN}')
    with pytest.raises(JsonOutputError, match="limit"):
        extract_json('{"a": "' + "x" * MAX_JSON_CHARS + '"}')


def test_an_unclosed_fence_over_whitespace_is_linear():
    import time

    start = time.perf_counter()
    with pytest.raises(ValueError):
        extract_json("```json" + " " * 100_000 + "x")  # quadratic in the fence regex before
    assert time.perf_counter() - start < 1.0


def test_a_fence_inside_a_json_string_does_not_hide_the_json():
    text = '{"a": "use ```code``` here"}'
    assert extract_json(text) == {"a": "use ```code``` here"}
    assert extract_json("Sure:\n" + text + "\nDone") == {"a": "use ```code``` here"}
    assert extract_json("```json\n" + text + "\n```") == {"a": "use ```code``` here"}


@pytest.mark.parametrize("bad", [DEEP, '{"city": "\\ud800", "country": "x"}'])
def test_json_falls_back_on_hostile_outputs_and_caches_nothing(settings, bad):
    llm = _llm(settings, [bad, bad, bad])
    trace = Trace()
    with trace.step("route"):
        result = llm.json(MESSAGES, City, tag="j", default=City(city="?", country="?"))
    assert result.fallback and result.value.city == "?" and len(llm.cache) == 0
    (repair,) = trace.steps[0].repairs
    assert repair.tag == "j" and repair.outcome == "fallback" and repair.attempt == 3
    assert repair.errors == result.errors and trace.steps[0].notes
    for error in result.errors:
        error.encode("utf-8")


def test_a_raw_lone_surrogate_is_replaced_before_parsing_and_cached_safely(settings):
    llm = _llm(settings, ['{"city": "Rome\ud800", "country": "x"}'])
    result = llm.json(MESSAGES, City, tag="j", default=City(city="?", country="?"))
    assert not result.fallback and result.value.city == "Rome\ufffd"
    assert len(llm.cache) == 1


def test_no_parser_exception_escapes_json_or_map(settings):
    from pydantic import field_validator

    class Exploding(BaseModel):
        city: str

        @field_validator("city")
        @classmethod
        def explode(cls, value):
            raise RuntimeError("a validator bug")

    llm = _llm(settings, lambda kwargs: DEEP if kwargs["seed"] % 2 else '{"city": "x"}')

    def call(i):
        return llm.json(
            [{"role": "user", "content": f"q{i}"}],
            Exploding,
            tag="j",
            default=lambda: Exploding.model_construct(city="?"),
        )

    results = llm.map(call, range(4), max_workers=2)
    assert all(r.fallback and r.value.city == "?" for r in results)
    assert any("RuntimeError" in e for e in results[0].errors)


def test_a_retry_that_succeeds_is_recorded_in_the_trace(settings):
    llm = _llm(settings, [DEEP, '{"city": "Oslo", "country": "Norway"}'])
    trace = Trace()
    with trace.step("route"):
        result = llm.json(MESSAGES, City, tag="j", default=City(city="?", country="?"))
    assert not result.fallback and result.attempts == 2
    (retry,) = trace.steps[0].repairs
    assert retry.tag == "j" and retry.outcome == "retry" and retry.attempt == 2
    assert "nested" in retry.errors[0] and retry.line() == "j: retry after 1 failed attempt(s)"
