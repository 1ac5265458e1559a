"""Prompt and generation throughput of each local tier, and the cost of a cache hit.

    python bench/llm_throughput.py [--tiers smollm135m qwen0.5b qwen1.5b] [--threads 2]

For each tier: start its server (load time), send prompts of ~400 tokens whose first line is a
fresh nonce (so the server's prompt-prefix cache cannot help) and generate up to 64 tokens;
prompt and generation tokens/s come from the server's own timings. Then one identical request
is answered twice through ``ace_lab.llm.LLM`` and the cache-hit latency is compared with the
model call, side by side in the same run. Prints one table.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pandas as pd

from ace_lab.config import load_settings
from ace_lab.llm import LLM, TIERS, ModelError, server

PASSAGE = (
    "The Meridian Institute was founded in 1921 by the cartographer Ilse Varga in the river "
    "town of Oskarby. Its first project mapped the tidal channels of the northern delta, work "
    "that later guided the construction of the Oskarby harbour. "
) * 8


def measure_tier(tier: str, threads: int, repeats: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        base = load_settings(tier=tier, threads=threads, base_url=None)
        settings = replace(base, cache_dir=Path(tmp))
        t0 = time.perf_counter()
        info = server.start(settings)
        load_s = time.perf_counter() - t0
        try:
            llm = LLM(settings)
            client = llm.client()
            prompt_tps, gen_tps, prompt_n, gen_n = [], [], [], []
            for _ in range(repeats):
                messages = [
                    {"role": "system", "content": f"Request {uuid.uuid4()}. Be brief."},
                    {"role": "user", "content": PASSAGE + "\nSummarise the passage."},
                ]
                response = client.chat.completions.create(
                    model=llm.model, messages=messages, max_tokens=64, temperature=0.0
                )
                timings = (response.model_extra or {}).get("timings", {})
                prompt_tps.append(timings.get("prompt_per_second", float("nan")))
                gen_tps.append(timings.get("predicted_per_second", float("nan")))
                prompt_n.append(timings.get("prompt_n", 0))
                gen_n.append(timings.get("predicted_n", 0))
            question = [{"role": "user", "content": f"Name one river. ({uuid.uuid4()})"}]
            miss = llm.chat(question, tag="bench", max_tokens=16)
            hit_s = []
            for _ in range(200):  # end to end: key hashing + SQLite lookup + ledger
                t = time.perf_counter()
                assert llm.chat(question, tag="bench", max_tokens=16).cache_hit
                hit_s.append(time.perf_counter() - t)
            hit_ms = statistics.median(hit_s) * 1000
        finally:
            server.stop(settings)
    return {
        "tier": tier,
        "threads": threads,
        "load_s": round(load_s, 1),
        "prompt_tokens": int(statistics.mean(prompt_n)),
        "prompt_tok_s": round(statistics.mean(prompt_tps), 1),
        "gen_tokens": int(statistics.mean(gen_n)),
        "gen_tok_s": round(statistics.mean(gen_tps), 1),
        "model_call_ms": round(miss.latency_s * 1000, 1),
        "cache_hit_ms": round(hit_ms, 3),
        "miss/hit": round(miss.latency_s * 1000 / hit_ms),
        "pid": info.pid,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiers", nargs="+", default=list(TIERS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    rows = []
    for tier in args.tiers:
        try:
            rows.append(measure_tier(tier, args.threads, args.repeats))
        except ModelError as exc:
            print(f"skipping {tier}: {exc}")
        print(f"done {tier}", flush=True)
    table = pd.DataFrame(rows).drop(columns="pid")
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
