"""The resumable per-chunk runner: records persist as they finish; a killed build resumes."""

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
from tests.conftest import ScriptedClient

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
