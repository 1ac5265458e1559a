"""ace_lab.llm.replay: a block's responses archived, replayed on an empty cache without a model
call, kept across replays, left alone when the block fails and kept when a resumable block is
interrupted."""

from __future__ import annotations

import contextlib
from dataclasses import replace

import pytest

from ace_lab.llm import LLM, ResponseArchive
from ace_lab.llm.replay import replaying
from tests.support.scripted import ScriptedClient


def _ask(llm: LLM, text: str) -> str:
    return llm.chat([{"role": "user", "content": text}], tag="test.replay").text


def _offline(settings, tmp_path, name: str) -> LLM:
    fresh = replace(settings, cache_dir=tmp_path / name)  # a fresh clone: empty cache
    return LLM(fresh, client=ScriptedClient(lambda kw: pytest.fail("model was called")))


def test_a_block_s_responses_replay_on_an_empty_cache(settings, tmp_path):
    path = tmp_path / "responses" / "run.jsonl"
    live = LLM(settings, client=ScriptedClient(["first", "second"]))
    _ask(live, "before")  # outside the block: not archived
    with replaying(live, path):
        assert _ask(live, "one") == "second"
        _ask(live, "before")  # a cache hit inside the block is archived too
    assert len(ResponseArchive(path)) == 2
    assert live.archives == []

    offline = _offline(settings, tmp_path, "empty")
    with replaying(offline, path, update=False):
        assert _ask(offline, "one") == "second" and _ask(offline, "before") == "first"
    assert all(c.cache_hit for c in offline.ledger.calls)
    with pytest.raises(pytest.fail.Exception, match="model was called"):
        _ask(_offline(settings, tmp_path, "empty-again"), "one")  # no archive: the model
    none = _offline(settings, tmp_path, "no-archive")
    with replaying(none, "") as nothing, pytest.raises(pytest.fail.Exception):
        assert nothing is None and none.archives == []
        _ask(none, "one")


def test_a_replay_keeps_what_the_archive_held_and_a_failed_block_writes_nothing(settings, tmp_path):
    path = tmp_path / "run.jsonl"
    other = LLM(settings, client=ScriptedClient(["x"]))
    with replaying(LLM(settings, client=ScriptedClient([])), path) as archive:
        assert len(archive) == 0
        _ask(other, "not this block's model")
    assert path.read_text() == ""  # the block's own LLM answered nothing

    llm = LLM(settings, client=ScriptedClient(["a", "b"]))
    with replaying(llm, path):
        _ask(llm, "one")
        _ask(llm, "two")
    held = path.read_text()
    offline = _offline(settings, tmp_path, "empty")
    with replaying(offline, path):
        _ask(offline, "one")  # uses one of the two responses
    assert path.read_text() == held  # the other stays replayable

    failing = LLM(settings, client=ScriptedClient(["z"]))
    with pytest.raises(RuntimeError), replaying(failing, path):
        _ask(failing, "three")
        raise RuntimeError("the block failed")
    assert path.read_text() == held


def test_an_interrupted_resumable_block_keeps_what_it_paid_for(settings, tmp_path):
    path = tmp_path / "run.jsonl"
    building = LLM(settings, client=ScriptedClient(["paid"]))
    with pytest.raises(KeyboardInterrupt), replaying(building, path, keep_on_error=True):
        _ask(building, "chunk one")
        raise KeyboardInterrupt  # the build stopped before its end
    offline = _offline(settings, tmp_path, "fresh clone")
    with replaying(offline, path):
        assert _ask(offline, "chunk one") == "paid"  # resumes without the model

    untouched = tmp_path / "none.jsonl"
    idle = LLM(settings, client=ScriptedClient([]))
    with pytest.raises(KeyboardInterrupt), replaying(idle, untouched, keep_on_error=True):
        raise KeyboardInterrupt
    assert not untouched.exists()  # nothing paid, nothing written


def test_replay_only_refuses_a_missing_response_even_when_the_caller_swallows_it(
    settings, tmp_path, monkeypatch
):
    from ace_lab.llm.replay import REPLAY_ONLY_ENV, NotArchived

    path = tmp_path / "run.jsonl"
    live = LLM(settings, client=ScriptedClient(["held"]))
    with replaying(live, path):
        _ask(live, "one")
    monkeypatch.setenv(REPLAY_ONLY_ENV, "1")
    offline = _offline(settings, tmp_path, "empty")
    with replaying(offline, path):
        assert _ask(offline, "one") == "held"  # archived: replayed
    refused = pytest.raises(NotArchived, match="1 LLM request")
    # The inner suppress is a method falling back on a failed call: the block still fails.
    with refused, replaying(offline, path), contextlib.suppress(NotArchived):
        _ask(offline, "two")
    assert len(ResponseArchive(path)) == 1  # the failed block wrote nothing
    with pytest.raises(pytest.fail.Exception, match="model was called"):
        _ask(offline, "outside any block")  # the block gave the model's client back
