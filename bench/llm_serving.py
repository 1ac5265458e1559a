"""Serving options of the local 1.5B tier, side by side on real HiRAG and Full-ACE requests.

    python bench/llm_serving.py [--options x n n-fa ...] [--questions 4] [--busy]
        [--requests bench/serving_requests.json] [--out results/serving]

Every option gets a server of its own (a shared one is never touched), started with the same
weights, then replays the fixed request set of ``bench/serving_requests.py`` (real calls of the
committed HotpotQA slice, in the order each query sends them) one call at a time. Per option:
prompt and generated tokens/s and time to first token from the server's own timings, the
end-to-end LLM time of one cold query per method, how many outputs differ from the first
option's, EM/F1 of the final answers (n = questions) and, with the prompt cache on, the share of
prompt tokens reused from a slot's cache. With ``--busy`` each option also replays the first
calls again beside one CPU-bound process and prints how much generation speed it keeps.
Options (``--list`` prints them): ``x`` is xllamacpp with today's settings, ``n`` the
``llama-server`` built by ``make native``. Writes ``<out>/llm_serving.{md,json}`` and each
option's replies (``<out>/replies_<option>.json``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.config import ServingOptions, load_settings
from ace_lab.eval.metrics import exact_match, f1_score
from ace_lab.eval.reporting.export import to_markdown
from ace_lab.llm import private_server, server
from ace_lab.llm.endpoint import openai_client
from ace_lab.llm.models import prepare_model
from ace_lab.methods.final_answer import extract_final_answer

REQUESTS = Path(__file__).with_name("serving_requests.json")
OUT = Path(__file__).resolve().parents[1] / "results" / "serving"
BUSY = "while True: pass"  # one CPU-bound process: a test run or a notebook kernel


@dataclass(frozen=True)
class Option:
    label: str
    options: ServingOptions
    threads: int = 2


# Normal priority, as before the default raised it: the rows compare one thing at a time.
_X = ServingOptions(backend="xllamacpp", priority=0)
_N = ServingOptions(backend="llama-server", priority=0)
OPTIONS: dict[str, Option] = {
    "x": Option("xllamacpp, today's settings", _X),
    "x-fa": Option("xllamacpp, flash attention", replace(_X, flash_attn="on")),
    "x-poll0": Option("xllamacpp, poll 0", replace(_X, poll=0)),
    "n": Option("llama-server native", _N),
    "n-fa": Option("llama-server native, flash attention", replace(_N, flash_attn="on")),
    "n-ub256": Option("llama-server native, ubatch 256", replace(_N, ubatch=256)),
    "n-q8kv": Option(
        "llama-server native, fa + q8_0 KV", replace(_N, flash_attn="on", kv_type="q8_0")
    ),
    "n-pc": Option("llama-server native, prompt cache on", replace(_N, prompt_cache=True)),
    "n-poll0": Option("llama-server native, poll 0", replace(_N, poll=0)),
    "n-t1": Option("llama-server native, 1 thread", _N, threads=1),
    "n-prio2": Option("llama-server native, priority high (default)", replace(_N, priority=2)),
    "n-nice10": Option("llama-server native, nice -10", replace(_N, nice=-10)),
    "n-lookup": Option("llama-server native, prompt lookup", replace(_N, prompt_lookup=True)),
    "n-spec": Option("llama-server native, draft qwen0.5b", replace(_N, draft_tier="qwen0.5b")),
}


def start(option: Option, model: Path, model_dir: Path, log: Path) -> tuple[subprocess.Popen, int]:
    """A server of its own for ``option``, healthy, and its port."""
    return private_server.start_private(
        model, "bench", option.options, threads=option.threads, ctx_size=8192, parallel=1,
        model_dir=model_dir, log=log,
    )  # fmt: skip


def send(client: Any, call: dict[str, Any]) -> dict[str, Any]:
    """One call as the method sent it; the reply text and the server's timings."""
    kwargs = {k: call[k] for k in ("messages", "temperature", "top_p", "max_tokens", "seed")}
    if call.get("stop"):
        kwargs["stop"] = call["stop"]
    if call.get("response_format"):
        kwargs["response_format"] = call["response_format"]
    t0 = time.perf_counter()
    response = client.chat.completions.create(model="bench", **kwargs)
    timings = (response.model_extra or {}).get("timings", {})
    return {"text": response.choices[0].message.content or "", "wall_s": time.perf_counter() - t0,
            **{k: timings.get(k, 0) for k in ("prompt_n", "prompt_ms", "predicted_n",
                                              "predicted_ms", "cache_n")}}  # fmt: skip


def replay(client: Any, data: dict[str, Any], methods: list[str], questions: int) -> list[dict]:
    """Every call of the first ``questions`` queries, one at a time, in the order sent."""
    out = []
    for qi, q in enumerate(data["questions"][:questions]):
        for method in methods:
            for ci, call in enumerate(q[method]):
                reply = send(client, call)
                out.append({"question": qi, "method": method, "call": ci,
                            "last": ci == len(q[method]) - 1, **reply})  # fmt: skip
    return out


def contention(client: Any, calls: list[dict[str, Any]]) -> dict[str, float]:
    """Generation tokens/s of ``calls`` alone, then beside one busy process."""
    speeds = {}
    for phase in ("idle", "busy"):
        busy = subprocess.Popen([sys.executable, "-c", BUSY]) if phase == "busy" else None
        try:
            replies = [send(client, c) for c in calls]
        finally:
            if busy is not None:
                busy.kill()
                busy.wait()
        speeds[phase] = rate(replies, "predicted")
    return speeds


def rate(replies: list[dict[str, Any]], kind: str) -> float:
    ms = sum(r[f"{kind}_ms"] for r in replies)
    return 1000 * sum(r[f"{kind}_n"] for r in replies) / ms if ms else float("nan")


def summarise(
    label: str, replies: list[dict], data: dict[str, Any], first: list[dict] | None
) -> dict[str, Any]:
    """One table row for an option (``first``: the first option's replies, for changes)."""
    row: dict[str, Any] = {"option": label, "calls": len(replies)}
    row["prompt tok/s"] = round(rate(replies, "prompt"), 1)
    row["gen tok/s"] = round(rate(replies, "predicted"), 2)
    row["TTFT median s"] = round(statistics.median(r["prompt_ms"] for r in replies) / 1000, 2)
    for method in dict.fromkeys(r["method"] for r in replies):
        mine = [r for r in replies if r["method"] == method]
        per_query = [sum(r["wall_s"] for r in mine if r["question"] == q)
                     for q in dict.fromkeys(r["question"] for r in mine)]  # fmt: skip
        row[f"{method} s/query"] = round(statistics.mean(per_query), 1)
        finals = [r for r in mine if r["last"]]
        gold = [data["questions"][r["question"]]["gold"] for r in finals]
        answers = [extract_final_answer(r["text"]) for r in finals]
        row[f"{method} EM"] = round(statistics.mean(map(exact_match, answers, gold)), 3)
        row[f"{method} F1"] = round(statistics.mean(map(f1_score, answers, gold)), 3)
    if first is not None:
        changed = sum(a["text"] != b["text"] for a, b in zip(replies, first, strict=True))
        row["outputs changed"] = f"{changed}/{len(replies)}"
    calls = [c for q in data["questions"] for m in dict.fromkeys(r["method"] for r in replies)
             for c in q.get(m, [])][: len(replies)]  # fmt: skip
    if len(calls) == len(replies) and all("reference" in c for c in calls):
        differs = sum(r["text"] != c["reference"] for r, c in zip(replies, calls, strict=True))
        row["changed vs collected"] = f"{differs}/{len(replies)}"
    reused = sum(r["cache_n"] for r in replies)
    if reused:
        row["prompt reused"] = round(reused / (reused + sum(r["prompt_n"] for r in replies)), 3)
    return row


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--options", nargs="+", default=["x", "x-fa", "n", "n-fa"])
    parser.add_argument("--questions", type=int, default=4)
    parser.add_argument("--methods", nargs="+", default=["hirag", "ace-full"])
    parser.add_argument("--busy", action="store_true", help="also measure beside a busy process")
    parser.add_argument("--requests", type=Path, default=REQUESTS)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--list", action="store_true")
    a = parser.parse_args(argv)
    if a.list:
        for key, option in OPTIONS.items():
            print(f"{key:8} {option.label}")
        return pd.DataFrame()
    data = json.loads(a.requests.read_text())
    settings = load_settings()
    model = prepare_model(data["model"], settings.model_dir)
    rows, first = [], None
    with tempfile.TemporaryDirectory() as tmp:
        for key in a.options:
            option = OPTIONS[key]
            proc, port = start(option, model, settings.model_dir, Path(tmp) / f"{key}.log")
            try:
                client = openai_client(f"http://{server.HOST}:{port}/v1", "local", 1800.0)
                send(client, {"messages": [{"role": "user", "content": "Hi"}], "temperature": 0.0,
                              "top_p": 1.0, "max_tokens": 4, "seed": 0})  # fmt: skip
                replies = replay(client, data, a.methods, a.questions)
                row = summarise(option.label, replies, data, first)
                row |= {"key": key, "options": option.options.as_dict(), "threads": option.threads}
                if a.busy:
                    speeds = contention(client, data["questions"][0][a.methods[0]][:2])
                    row["gen tok/s idle → busy"] = f"{speeds['idle']:.2f} → {speeds['busy']:.2f}"
                    row["kept under load"] = round(speeds["busy"] / speeds["idle"], 2)
            finally:
                private_server.terminate(proc.pid)
            first = first or replies
            rows.append(row)
            a.out.mkdir(parents=True, exist_ok=True)  # each option's replies, for later diffs
            (a.out / f"replies_{key}.json").write_text(json.dumps(replies, indent=0) + "\n")
            print(json.dumps(row), flush=True)
    command = "python bench/llm_serving.py " + " ".join(argv if argv is not None else sys.argv[1:])
    return write_table(rows, a.methods, a.out, command.strip(), data, a.questions)


def write_table(
    rows: list[dict[str, Any]], methods: list[str], out: Path, command: str,
    data: dict[str, Any], questions: int,
) -> pd.DataFrame:  # fmt: skip
    """Speed-ups against the first row; ``<out>/llm_serving.{md,json}``; the table printed."""
    df = pd.DataFrame(rows)
    base = df.iloc[0]
    for method in methods:
        df[f"{method} speed-up"] = (base[f"{method} s/query"] / df[f"{method} s/query"]).round(2)
    out.mkdir(parents=True, exist_ok=True)
    header = (f"<!-- {command} ; requests: {data['command']} ; "
              f"model {data['model']}, n = {questions} questions -->\n")  # fmt: skip
    shown = df.drop(columns=["key", "options", "threads"])
    (out / "llm_serving.md").write_text(header + to_markdown(shown) + "\n")
    (out / "llm_serving.json").write_text(df.to_json(orient="records", indent=1) + "\n")
    print(to_markdown(shown))
    return df


if __name__ == "__main__":
    main()
