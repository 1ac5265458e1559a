"""Does one prompt get one answer at temperature 0? Distinct answers and throughput per setting.

    python bench/answer_determinism.py [--tier smollm135m] [--targets 2] [--repeats 2]
        [--dataset hotpotqa_dev_sample200] [--context-tokens 600] [--max-tokens 64]
        [--prompts-file prompts.json]
        [--settings cache=1,parallel=2 cache=0,parallel=2 cache=0,parallel=1]

For each server setting (prompt-prefix cache on/off, parallel slots) a fresh server of the tier
is started on a port of its own (a shared server is never touched) and ``--targets`` QA prompts
(``answer_qa`` over one question's passages, cut to ``--context-tokens``; or the first prompts of
``--prompts-file``, a JSON list of chat message lists, e.g. rebuilt prompts of a study) are each
sent

- **sequentially**, ``--repeats`` times, each time right after a different other prompt (with
  the prefix cache on, the slot then holds another prompt's KV and reuses its shared prefix);
- **concurrently**, ``--repeats`` times, together with two other prompts, so the other slots
  are busy and the target's tokens are batched with theirs.

Requests go straight to the server at temperature 0 with a fixed seed (no response cache).
Prints, per setting side by side: per target, the distinct raw generations in the sequential
phase, the concurrent phase and both (``seq/conc/all``; 1 everywhere = reproducible) and the
distinct extracted answers; and the throughput of each phase (requests per minute, prompt tokens
the server evaluated per second, generated tokens per second). The machine's load average is
printed too: on a shared machine the throughput columns are only comparable within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.config import ServingOptions, load_settings
from ace_lab.data import load_slice
from ace_lab.llm import private_server, server
from ace_lab.llm.endpoint import completion_parts, openai_client
from ace_lab.llm.models import prepare_model
from ace_lab.methods.final_answer import extract_final_answer
from ace_lab.prompts import load_prompt
from ace_lab.tokens import count_tokens

Messages = list[dict[str, str]]
#: Old default (prefix cache on, two slots), new default (cache off) and one slot.
DEFAULT_SETTINGS = ["cache=1,parallel=2", "cache=0,parallel=2", "cache=0,parallel=1"]


@dataclass(frozen=True)
class ServerSetting:
    """One server configuration under test."""

    prompt_cache: bool
    parallel: int

    @property
    def name(self) -> str:
        cache = "on" if self.prompt_cache else "off"
        return f"prompt cache {cache}, {self.parallel} slot{'s' if self.parallel > 1 else ''}"

    @classmethod
    def parse(cls, text: str) -> ServerSetting:
        """``cache=0,parallel=2`` → prompt cache off, two slots."""
        fields = dict(part.split("=", 1) for part in text.split(","))
        return cls(bool(int(fields.get("cache", 0))), int(fields.get("parallel", 2)))


@dataclass(frozen=True)
class Reply:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int


def qa_prompts(dataset: str, n: int, context_tokens: int) -> list[Messages]:
    """``n`` ``answer_qa`` prompts: a question over its own passages, cut to a token budget."""
    sl = load_slice(dataset, n)
    passages = {p.id: p for p in sl.passages}
    prompts = []
    for q in sl.questions[:n]:
        ids = sl.question_passage_ids.get(q.id) or [p.id for p in sl.passages]
        lines: list[str] = []
        for pid in ids:
            line = f"- {passages[pid].title}: {passages[pid].text}"
            if count_tokens("\n".join([*lines, line])) > context_tokens:
                break
            lines.append(line)
        context = "\n".join(lines)
        prompts.append(load_prompt("answer_qa").messages(query=q.question, context=context))
    return prompts


def run_workload(
    ask: Callable[[Messages], Reply],
    targets: Sequence[Messages],
    others: Sequence[Messages],
    repeats: int,
) -> dict[str, Any]:
    """Send every target ``repeats`` times sequentially and ``repeats`` times concurrently.

    Returns the replies per target (``answers[i]``: sequential first) and, per phase, the
    replies and wall seconds (``phases[name] = (replies, seconds)``).
    """
    if len(others) < 2:
        raise ValueError("need at least two other prompts to interleave and to fill slots")
    answers: list[list[Reply]] = [[] for _ in targets]
    phases: dict[str, tuple[list[Reply], float]] = {}
    replies: list[Reply] = []
    start = time.perf_counter()
    for r in range(repeats):
        for i, target in enumerate(targets):
            replies.append(ask(others[(i + r) % len(others)]))
            answers[i].append(ask(target))
            replies.append(answers[i][-1])
    phases["sequential"] = (replies, time.perf_counter() - start)
    replies = []
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=3) as pool:
        for r in range(repeats):
            for i, target in enumerate(targets):
                a, b = others[(i + r) % len(others)], others[(i + r + 1) % len(others)]
                futures = [pool.submit(ask, a), pool.submit(ask, target), pool.submit(ask, b)]
                done = [f.result() for f in futures]
                answers[i].append(done[1])
                replies.extend(done)
    phases["concurrent"] = (replies, time.perf_counter() - start)
    return {"answers": answers, "phases": phases}


def distinct(replies: Sequence[Reply], extract: bool = False) -> int:
    """How many different texts (or extracted final answers) ``replies`` hold."""
    return len({extract_final_answer(r.text) if extract else r.text for r in replies})


def summarise(name: str, result: dict[str, Any]) -> dict[str, Any]:
    """One table row: per target, distinct generations in the sequential phase, the concurrent
    phase and both together (``seq/conc/all``), distinct extracted answers over both, and each
    phase's throughput."""
    answers: list[list[Reply]] = result["answers"]
    n_seq = len(answers[0]) // 2 if answers else 0
    row: dict[str, Any] = {
        "setting": name,
        "distinct generations seq/conc/all": "  ".join(
            f"{distinct(a[:n_seq])}/{distinct(a[n_seq:])}/{distinct(a)}" for a in answers
        ),
        "distinct answers": " ".join(str(distinct(a, extract=True)) for a in answers),
    }
    for phase, (replies, seconds) in result["phases"].items():
        evaluated = sum(r.prompt_tokens - r.cached_tokens for r in replies)
        generated = sum(r.completion_tokens for r in replies)
        row[f"{phase} req/min"] = round(60 * len(replies) / seconds, 2)
        row[f"{phase} prompt tok/s"] = round(evaluated / seconds, 1)
        row[f"{phase} gen tok/s"] = round(generated / seconds, 2)
    return row


def start_server(
    model: Path, tier: str, setting: ServerSetting, threads: int, ctx: int, log: Path
) -> tuple[subprocess.Popen, int]:
    """A server of its own for ``setting`` (not the shared one), healthy, and its port."""
    options = ServingOptions(prompt_cache=setting.prompt_cache)
    return private_server.start_private(
        model, tier, options, threads=threads, ctx_size=ctx, parallel=setting.parallel,
        model_dir=model.parent, log=log,
    )  # fmt: skip


def measure(
    args: argparse.Namespace,
    setting: ServerSetting,
    prompts: list[Messages],
    model: Path,
    log: Path,
) -> dict[str, Any]:
    proc, port = start_server(model, args.tier, setting, args.threads, args.ctx, log)
    try:
        client = openai_client(f"http://{server.HOST}:{port}/v1", "local", 900.0)

        def ask(messages: Messages) -> Reply:
            response = client.chat.completions.create(
                model=args.tier,
                messages=messages,
                temperature=0.0,
                seed=0,
                max_tokens=args.max_tokens,
            )
            return Reply(*completion_parts(response))

        load = os.getloadavg()[0]
        result = run_workload(ask, prompts[: args.targets], prompts[args.targets :], args.repeats)
        return summarise(setting.name, result) | {"load avg": f"{load:.1f}"}
    finally:
        private_server.terminate(proc.pid)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tier", default="smollm135m")
    parser.add_argument("--dataset", default="hotpotqa_dev_sample200")
    parser.add_argument("--targets", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--context-tokens", type=int, default=600)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=load_settings().llm.threads)
    parser.add_argument("--ctx", type=int, default=4096, help="context tokens per slot")
    parser.add_argument("--settings", nargs="+", default=DEFAULT_SETTINGS)
    parser.add_argument("--prompts-file", type=Path, help="JSON list of chat message lists")
    args = parser.parse_args(argv)
    settings = [ServerSetting.parse(s) for s in args.settings]
    if args.prompts_file:
        prompts = json.loads(args.prompts_file.read_text())
    else:
        prompts = qa_prompts(args.dataset, args.targets + 3, args.context_tokens)
    model = prepare_model(args.tier, load_settings().model_dir)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for setting in settings:
            rows.append(measure(args, setting, prompts, model, Path(tmp) / "server.log"))
            print(pd.DataFrame(rows[-1:]).to_string(index=False), flush=True)
    table = pd.DataFrame(rows)
    source = args.prompts_file or f"{args.dataset} contexts ≤ {args.context_tokens} tokens"
    print(
        f"\n{args.tier}, {args.targets} targets × {args.repeats} repeats per phase, prompts: "
        f"{source}, max {args.max_tokens} generated tokens, {args.threads} threads"
    )
    print(table.to_string(index=False))
    return table


if __name__ == "__main__":
    main()
