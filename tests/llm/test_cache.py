"""ace_lab.llm.cache: cache keys (numbers normalised, old keys kept), concurrent writers, the
response archive (atomic, line separators in responses)."""

from __future__ import annotations

import multiprocessing as mp
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ace_lab.llm import ResponseArchive, ResponseCache, cache_key
from ace_lab.llm.cache import CachedResponse
from tests.support.scripted import CHAT_MESSAGES as MESSAGES

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


# ------------------------------------------------------------- concurrent writers
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


# ------------------------------------------------------------ numeric request fields
#: The key of BASE_REQUEST as every cache and archive so far made it (floats 0.0 and 1.0).
BASE_KEY = "07c85ecd57a4327c593a517f61383b6e162d624f0787f2b9ebe1a689130fac17"


def test_existing_float_keys_are_unchanged():
    assert cache_key(BASE_REQUEST) == BASE_KEY


@settings(derandomize=True, max_examples=200)
@given(
    temperature=st.integers(0, 2),
    top_p=st.integers(0, 1),
    max_tokens=st.integers(1, 4096),
    seed=st.integers(0, 2**31),
)
def test_integer_and_float_numbers_give_one_key(temperature, top_p, max_tokens, seed):
    as_ints = dict(
        BASE_REQUEST, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed
    )
    as_floats = dict(
        BASE_REQUEST,
        temperature=float(temperature),
        top_p=float(top_p),
        max_tokens=float(max_tokens),
        seed=float(seed),
    )
    assert cache_key(as_ints) == cache_key(as_floats)


def test_temperature_zero_int_hits_the_float_entry(tmp_path):
    assert cache_key(dict(BASE_REQUEST, temperature=0)) == BASE_KEY
    assert cache_key(dict(BASE_REQUEST, temperature=-0.0, top_p=1)) == BASE_KEY
    assert cache_key(dict(BASE_REQUEST, temperature=0.5)) != BASE_KEY
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put(cache_key(dict(BASE_REQUEST, temperature=0)), BASE_REQUEST, "hi", 1, 1)
    assert cache.get(BASE_KEY).text == "hi"


# ------------------------------------------------------------ entries and the archive
def test_a_put_without_latency_does_not_keep_an_older_latency(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", BASE_REQUEST, "first", 1, 1, latency_s=5.0)
    cache.put("k", BASE_REQUEST, "second", 1, 1)
    assert cache.get("k") == CachedResponse("second", 1, 1, None)


def test_archive_keeps_responses_with_unicode_line_separators(tmp_path):
    texts = {"a": "one\u2028two", "b": "three\u2029four\x85five", "c": "plain"}
    path = tmp_path / "llm_responses.jsonl"
    ResponseArchive.write(path, {k: CachedResponse(t, 2, 3) for k, t in texts.items()})
    archive = ResponseArchive(path)
    assert len(archive) == 3
    assert {k: archive.get(k).text for k in texts} == texts
    assert {k: e.text for k, e in archive.entries().items()} == texts


def test_archive_write_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "llm_responses.jsonl"
    ResponseArchive.write(path, {"a": CachedResponse("old", 1, 1)})
    before = path.read_bytes()

    def die(*args, **kwargs):
        raise KeyboardInterrupt  # the process dies after writing, before the rename

    monkeypatch.setattr(os, "replace", die)
    with pytest.raises(KeyboardInterrupt):
        ResponseArchive.write(path, {"b": CachedResponse("new " * 10_000, 1, 1)})
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary left behind
