"""The response cache under concurrent writer processes (issue 13, item 7).

``writers`` processes (spawned, each with its own ``ResponseCache`` on one SQLite file) each put
``writes`` responses: their own keys, plus every tenth write one of a few keys that all writers
share, half of them asking with ``temperature=0`` and half with ``0.0`` (one key since numeric
fields are normalised). Each writer reads back what it wrote as it goes. Afterwards every
entry must be there exactly as written — text, token counts, latency — with no extra row, and
the file must pass ``PRAGMA integrity_check``.

``measure(full)`` returns the table row (8 × 1,000 at full scale, 4 × 100 in the fast version).
"""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

ROW = "response cache, concurrent writers"
#: Keys every writer also writes (the same response each time, as a real shared prompt would).
SHARED_KEYS = 16


def request(worker: int, i: int) -> dict[str, Any]:
    """Writer ``worker``'s ``i``-th request: its own, or (every tenth) a shared one."""
    messages = [{"role": "user", "content": f"worker {worker} write {i} \u00e9\u2028"}]
    temperature: float = 0.0
    if i % 10 == 0:
        messages = [{"role": "user", "content": f"shared {i // 10 % SHARED_KEYS}"}]
        temperature = 0 if worker % 2 else 0.0
    return {
        "model_identity": "load:test",
        "messages": messages,
        "temperature": temperature,
        "top_p": 1.0,
        "max_tokens": 64,
        "stop": None,
        "seed": 0,
        "response_format": None,
    }


def response(req: dict[str, Any]) -> tuple[str, int, int, float]:
    """The response a request gets: text, prompt and completion tokens, latency."""
    prompt = req["messages"][0]["content"]
    text = f"answer to {prompt} " + "x" * (len(prompt) * 7 % 97)
    return text, len(text), len(text) % 13, round(len(text) / 1000, 3)


def write(path: str, worker: int, writes: int) -> list[int]:
    """One writer process: put every response and read it back; the writes that read wrong."""
    from ace_lab.llm import ResponseCache, cache_key

    cache = ResponseCache(path)
    wrong = []
    for i in range(writes):
        req = request(worker, i)
        text, prompt, completion, latency = response(req)
        key = cache_key(req)
        cache.put(key, req, text, prompt, completion, latency)
        got = cache.get(key)
        if got is None or (got.text, got.prompt_tokens, got.latency_s) != (text, prompt, latency):
            wrong.append(i)
    return wrong


def _worker(path: str, worker: int, writes: int, results: Any) -> None:
    results.put((worker, write(path, worker, writes)))


def run_load(path: Path, writers: int, writes: int) -> dict[str, Any]:
    """Run the writers against ``path``; the writes that did not hold, and what the file holds."""
    from ace_lab.llm import ResponseCache, cache_key

    ResponseCache(path)  # create the schema before the race
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(str(path), w, writes, results)) for w in range(writers)
    ]
    began = time.perf_counter()
    for proc in procs:
        proc.start()
    wrong = dict(results.get(timeout=600) for _ in procs)
    for proc in procs:
        proc.join(60)
    seconds = time.perf_counter() - began

    cache = ResponseCache(path)
    failed, keys, prompts = 0, set(), set()
    for worker in range(writers):
        bad = set(wrong.get(worker, range(writes)))
        for i in range(writes):
            req = request(worker, i)
            key = cache_key(req)
            keys.add(key)
            prompts.add(req["messages"][0]["content"])
            hit = cache.get(key)
            stored = hit and (hit.text, hit.prompt_tokens, hit.completion_tokens, hit.latency_s)
            failed += i in bad or stored != response(req)
    conn = sqlite3.connect(path)
    try:
        verdict = conn.execute("PRAGMA integrity_check").fetchone()[0]
        rows = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    finally:
        conn.close()
    crashed = [w for w, proc in enumerate(procs) if proc.exitcode != 0]
    return {
        "writes": writers * writes,
        "failed": writers * writes if verdict != "ok" or crashed else failed,
        "keys": len(keys),
        "requests": len(prompts),  # distinct requests: 0 and 0.0 are one
        "rows": rows,
        "integrity": verdict,
        "crashed": crashed,
        "seconds": round(seconds, 1),
    }


def measure(full: bool) -> list[dict[str, Any]]:
    writers, writes = (8, 1000) if full else (4, 100)
    with tempfile.TemporaryDirectory(prefix="ace-cache-load-") as tmp:
        out = run_load(Path(tmp) / "llm_cache.sqlite", writers, writes)
    extra = out["rows"] - out["requests"]  # rows for one request (0 and 0.0 keyed apart)
    failed = min(out["writes"], out["failed"] + max(extra, 0))
    return [
        {
            "property": ROW,
            "attempts": out["writes"],
            "held": out["writes"] - failed,
            "failed": failed,
            "note": (
                f"{writers} processes x {writes} writes in {out['seconds']} s: {out['keys']} keys "
                f"({SHARED_KEYS} shared, asked with temperature 0 and 0.0), {out['rows']} rows; "
                f"integrity_check {out['integrity']}"
                + (f"; writers {out['crashed']} crashed" if out["crashed"] else "")
            ),
        }
    ]
