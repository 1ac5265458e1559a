"""ace_lab.graph.extract: per-chunk records persist as they finish; a killed build resumes (also
from a torn multi-byte tail); records count the cold-cache cost."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import time
from pathlib import Path

from ace_lab.data import Chunk
from ace_lab.graph.extract import cost_summary, read_records, run_per_chunk
from ace_lab.llm import LLM
from tests.support.scripted import ScriptedClient

CHUNKS = [
    Chunk(id=f"c{i:02d}", doc_id=f"d{i}", title="t", text=f"text {i}", index=0, start=0)
    for i in range(12)
]


def _slow_extract(chunk: Chunk) -> dict:
    time.sleep(0.15)
    return {"n": int(chunk.id[1:])}


def _run(out: str, settings) -> None:
    llm = LLM(settings, client=ScriptedClient([]))
    run_per_chunk(CHUNKS, _slow_extract, out, llm, progress=False)


def test_records_are_written_and_reused(settings, tmp_path):
    llm = LLM(settings, client=ScriptedClient(lambda kw: "{}"))
    calls = []

    def extract(chunk: Chunk) -> dict:
        calls.append(chunk.id)
        llm.chat([{"role": "user", "content": chunk.text}], tag="x")
        return {"id": chunk.id}

    out = tmp_path / "x.jsonl"
    first = run_per_chunk(CHUNKS[:5], extract, out, llm, progress=False)
    assert sorted(first) == [c.id for c in CHUNKS[:5]]
    assert first["c00"].llm_calls == 1 and first["c00"].prompt_tokens == 11
    again = run_per_chunk(CHUNKS[:8], extract, out, llm, progress=False)
    assert len(again) == 8 and len(calls) == 8  # only the 3 new chunks ran
    assert cost_summary(again, "x")["calls_per_chunk"] == 1.0
    assert cost_summary(again, "x")["seconds_per_chunk"] is not None
    out.unlink()  # records lost, responses cached: the chunks replay and took no model time
    replayed = run_per_chunk(CHUNKS[:8], extract, out, llm, progress=False)
    assert all(r.cache_hits == r.llm_calls for r in replayed.values())
    assert cost_summary(replayed, "x")["seconds_per_chunk"] is None


def test_killed_build_resumes_without_loss_or_duplicates(settings, tmp_path):
    out = tmp_path / "run.jsonl"
    ctx = mp.get_context("fork")
    proc = ctx.Process(target=_run, args=(str(out), settings))
    proc.start()
    deadline = time.time() + 20
    while time.time() < deadline and len(read_records(out)) < 4:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    partial = read_records(out)
    assert 0 < len(partial) < len(CHUNKS)
    with out.open("a") as fh:  # the process died while writing a line
        fh.write('{"chunk_id": "c11", "resu')
    _run(str(out), settings)
    lines = [json.loads(line) for line in Path(out).read_text().splitlines()]
    ids = [rec["chunk_id"] for rec in lines]
    assert sorted(ids) == [c.id for c in CHUNKS]  # every chunk exactly once
    assert all(rec["result"]["n"] == int(rec["chunk_id"][1:]) for rec in lines)


def test_a_torn_multibyte_tail_costs_one_chunk_not_the_file(settings, tmp_path):
    """A kill mid-write can cut a UTF-8 character in half; the reader used to raise on it."""
    out = tmp_path / "x.jsonl"
    whole = {"chunk_id": "c00", "result": {"name": "Zürich"}, "llm_calls": 0, "cache_hits": 0,
             "prompt_tokens": 0, "completion_tokens": 0, "fallbacks": 0}  # fmt: skip
    torn = json.dumps(whole | {"chunk_id": "c01", "result": {"name": "Ørsted"}}, ensure_ascii=False)
    cut = torn.encode().index("Ø".encode()) + 1
    out.write_bytes((json.dumps(whole, ensure_ascii=False) + "\n").encode() + torn.encode()[:cut])
    assert list(read_records(out)) == ["c00"]
    llm = LLM(settings, client=ScriptedClient([]))
    done = run_per_chunk(CHUNKS[:2], lambda c: {"n": int(c.id[1:])}, out, llm, progress=False)
    assert sorted(done) == ["c00", "c01"] and done["c00"].result == {"name": "Zürich"}
    lines = out.read_bytes().decode("utf-8").splitlines()
    assert [json.loads(line)["chunk_id"] for line in lines] == ["c00", "c01"]


def test_records_count_what_cached_responses_cost(settings, tmp_path):
    """A chunk whose response was cached before a crash costs what an uninterrupted run's does."""
    llm = LLM(settings, client=ScriptedClient(lambda kw: "{}"))

    def extract(chunk: Chunk) -> dict:
        llm.chat([{"role": "user", "content": chunk.text}], tag="x")
        return {}

    cold = run_per_chunk(CHUNKS[:1], extract, tmp_path / "cold.jsonl", llm, progress=False)
    warm = run_per_chunk(CHUNKS[:1], extract, tmp_path / "warm.jsonl", llm, progress=False)
    assert warm["c00"].cache_hits == 1 and cold["c00"].cache_hits == 0
    assert (warm["c00"].prompt_tokens, warm["c00"].completion_tokens) == (11, 1)
    assert (cold["c00"].prompt_tokens, cold["c00"].completion_tokens) == (11, 1)


def test_chunks_in_flight_share_fsyncs_and_write_each_record_once(settings, tmp_path, monkeypatch):
    from dataclasses import replace

    syncs: list[int] = []
    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:  # a busy disk: records pile up while one fsync runs
        syncs.append(fd)
        time.sleep(0.05)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    settings = replace(settings, llm=replace(settings.llm, concurrency=12))
    llm = LLM(settings, client=ScriptedClient([]))
    out = tmp_path / "extract.jsonl"
    records = run_per_chunk(CHUNKS, lambda c: {"n": int(c.id[1:])}, out, llm, progress=False)
    ids = [json.loads(line)["chunk_id"] for line in out.read_text().splitlines()]
    assert sorted(ids) == sorted(c.id for c in CHUNKS) == sorted(records)
    assert 1 <= len(syncs) < len(CHUNKS)  # group commit: fewer fsyncs than records
