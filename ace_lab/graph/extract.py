"""Resumable per-chunk LLM extraction: the loop every graph family's builder shares.

``run_per_chunk`` applies a per-chunk extraction function to every chunk not yet done and appends
each finished chunk's record to a JSONL file as soon as it completes (flushed and fsynced), so a
build killed mid-way restarts where it stopped: no chunk is lost, none is done twice. A torn last
line (the process died while writing it) is ignored and that chunk is redone.

Each record carries the chunk's LLM cost — calls, cache hits, prompt and completion tokens — read
from a per-chunk ``Trace``, so the build can report calls and tokens per chunk per family. The
tokens are what the responses cost the model when they were made (also for a cache hit), so a
build resumed after a crash — whose in-flight chunks may find their responses cached — reports
the same cost as an uninterrupted one.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from ace_lab.data import Chunk
from ace_lab.evidence import Trace
from ace_lab.llm import LLM


@dataclass(frozen=True)
class ChunkRecord:
    chunk_id: str
    result: dict[str, Any]
    llm_calls: int
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int
    fallbacks: int
    seconds: float = 0.0  # wall time of the chunk's extraction (0 in records from before)


def read_records(path: Path) -> dict[str, ChunkRecord]:
    """Finished records by chunk id; a torn or corrupt line is skipped (that chunk is redone).

    Lines are decoded one at a time: a process killed mid-write can leave half of a multi-byte
    character at the end of the file, which must cost that one chunk, not the whole file.
    """
    records: dict[str, ChunkRecord] = {}
    if not path.is_file():
        return records
    with path.open("rb") as fh:  # binary lines split on b"\n" only
        for line in fh:
            try:
                record = ChunkRecord(**json.loads(line.decode("utf-8")))
            except (UnicodeDecodeError, json.JSONDecodeError, TypeError):
                continue
            records[record.chunk_id] = record
    return records


class _Appender:
    """Thread-safe JSONL appender that makes each line durable before returning.

    Lines are written under one lock, synced under another (group commit): a thread whose line
    an fsync already covered returns without its own, so chunks in flight together do not queue
    behind one fsync each.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()
        self._sync_lock = threading.Lock()
        self._written = 0  # lines written (and flushed to the OS)
        self._synced = 0  # lines known durable

    def write(self, record: ChunkRecord) -> None:
        line = json.dumps(record.__dict__, ensure_ascii=False) + "\n"
        with self._lock:
            self._fh.write(line)
            self._fh.flush()
            self._written += 1
            mine = self._written
        with self._sync_lock:
            if self._synced < mine:
                with self._lock:
                    covered = self._written
                os.fsync(self._fh.fileno())
                self._synced = covered

    def close(self) -> None:
        self._fh.close()


def _repair_tail(path: Path) -> None:
    """Cut a torn last line so new records start on a fresh line."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return
        data = path.read_bytes()
        fh.seek(0)
        fh.truncate(data.rfind(b"\n") + 1)


def run_per_chunk(
    chunks: Iterable[Chunk],
    extract: Callable[[Chunk], dict[str, Any]],
    out_path: Path | str,
    llm: LLM,
    *,
    desc: str = "extract",
    progress: bool = True,
) -> dict[str, ChunkRecord]:
    """Run ``extract`` on every chunk without a record in ``out_path``; return all records.

    Chunks run concurrently up to the LLM's concurrency limit; order of completion does not
    matter because records are keyed by chunk id.
    """
    out_path = Path(out_path)
    _repair_tail(out_path)
    done = read_records(out_path)
    todo = [c for c in chunks if c.id not in done]
    if not todo:
        return done
    appender = _Appender(out_path)
    bar = tqdm(total=len(todo), desc=desc, disable=not progress, unit="chunk")

    def one(chunk: Chunk) -> ChunkRecord:
        trace = Trace()
        with trace.step(desc, chunk_id=chunk.id) as step:
            result = extract(chunk)
        calls = trace.llm_calls
        record = ChunkRecord(
            chunk_id=chunk.id,
            result=result,
            llm_calls=len(calls),
            cache_hits=sum(c.cache_hit for c in calls),
            prompt_tokens=sum(c.response_prompt_tokens for c in calls),
            completion_tokens=sum(c.response_completion_tokens for c in calls),
            fallbacks=sum(r.outcome == "fallback" for r in step.repairs),
            seconds=round(step.elapsed, 3),
        )
        appender.write(record)
        bar.update(1)
        return record

    try:
        for record in llm.map(one, todo):
            done[record.chunk_id] = record
    finally:
        appender.close()
        bar.close()
    return done


def cost_table(records: dict[str, ChunkRecord]) -> pd.DataFrame:
    """Per-chunk LLM cost (one row per chunk)."""
    rows = [{k: v for k, v in r.__dict__.items() if k != "result"} for r in records.values()]
    return pd.DataFrame(rows)


def cost_summary(records: dict[str, ChunkRecord], stage: str) -> dict[str, Any]:
    """Calls and tokens per chunk for one extraction stage."""
    table = cost_table(records)
    n = max(len(table), 1)
    return {
        "stage": stage,
        "chunks": len(table),
        "llm_calls": int(table["llm_calls"].sum()) if len(table) else 0,
        "calls_per_chunk": round(float(table["llm_calls"].sum()) / n, 3) if len(table) else 0,
        "prompt_tokens_per_chunk": round(float(table["prompt_tokens"].sum()) / n, 1)
        if len(table)
        else 0,
        "completion_tokens_per_chunk": round(float(table["completion_tokens"].sum()) / n, 1)
        if len(table)
        else 0,
        "fallbacks": int(table["fallbacks"].sum()) if len(table) else 0,
        # Mean over chunks whose record has a time; concurrent chunks overlap, so this is the
        # latency of one chunk, not the build's wall time divided by chunks.
        "seconds_per_chunk": round(float(timed.mean()), 2) if len(timed := _timed(table)) else None,
    }


def _timed(table: pd.DataFrame) -> pd.Series:
    """The times of chunks the model extracted: a chunk replayed from the cache took no
    model time (a resumed build re-records the chunks an interrupted run had not recorded)."""
    if "seconds" not in table:
        return pd.Series(dtype=float)
    return table.loc[(table["seconds"] > 0) & (table["cache_hits"] < table["llm_calls"]), "seconds"]
