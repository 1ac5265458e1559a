"""ace_lab.llm.ledger_file: this machine's ledger of model calls (service seconds, solo or not),
written by the LLM client for every call that reached the model and read back by identity."""

from __future__ import annotations

import pytest

from ace_lab.llm import LLM
from ace_lab.llm.ledger_file import (
    LedgerEntry,
    append_entry,
    ledger_path,
    log_model_call,
    read_ledger,
)
from tests.support.scripted import CHAT_MESSAGES, ScriptedClient


def _entry(identity: str = "m", **kw) -> LedgerEntry:
    return LedgerEntry("2026-01-01T00:00:00+00:00", identity, "t", 10, 2, 0, 0.5, **kw)


def test_entries_read_back_by_identity_and_a_torn_line_is_skipped(tmp_path) -> None:
    path = ledger_path(tmp_path / "cache")
    append_entry(path, _entry("a"))
    append_entry(path, _entry("b", in_flight=2))
    with path.open("a") as out:
        out.write('{"time": "x", "model_ide')  # a crash mid-write
    assert read_ledger(path) == [_entry("a"), _entry("b", in_flight=2)]
    assert read_ledger(path, "b") == [_entry("b", in_flight=2)]
    assert read_ledger(tmp_path / "none.jsonl") == []


def test_the_client_ledgers_each_model_call_with_its_service_time(settings) -> None:
    client = ScriptedClient(["one two", "three"], delay_s=0.05, server_cached_tokens=4)
    llm = LLM(settings, client=client, model_identity="test:model")
    llm.chat(CHAT_MESSAGES, tag="a")
    llm.chat(CHAT_MESSAGES, tag="a")  # a cache hit: no model call, no line
    llm.chat(CHAT_MESSAGES, tag="b", max_tokens=7)
    entries = read_ledger(ledger_path(settings.cache_dir))
    assert [(e.model_identity, e.tag, e.prompt_tokens, e.completion_tokens) for e in entries] == [
        ("test:model", "a", 11, 2),
        ("test:model", "b", 11, 1),
    ]
    assert all(e.server_cached_tokens == 4 and e.in_flight == 1 for e in entries)
    assert all(0.05 <= e.latency_s < 5 for e in entries)


def test_scripted_and_uncached_clients_write_no_ledger(settings) -> None:
    LLM(settings, client=ScriptedClient(["x"])).chat(CHAT_MESSAGES, tag="a")  # injected:...
    uncached = settings.with_llm(cache=False)
    LLM(uncached, client=ScriptedClient(["x"]), model_identity="m").chat(CHAT_MESSAGES, tag="a")
    assert not ledger_path(settings.cache_dir).exists()


def test_a_ledger_that_cannot_be_written_is_logged_not_raised(tmp_path, caplog) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    llm = type("L", (), {"cache": object(), "model_identity": "m"})()
    llm.settings = type("S", (), {"cache_dir": blocked})()
    log_model_call(llm, "t", ("x", 1, 1, 0), 0.1, 1)
    assert "cannot append to the LLM ledger" in caplog.text
    with pytest.raises(OSError):
        append_entry(ledger_path(blocked), _entry())
