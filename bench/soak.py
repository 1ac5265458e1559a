"""Soak: a study with the smoke tier on a registered corpus, killed with ``kill -9`` every few
minutes and resumed by a supervisor loop, behind an endpoint that faults 20 % of its requests,
while a reader re-reads the study's records and re-renders its tables as a notebook would.

    python bench/soak.py                       # 2 hours (make soak; not in CI)
    python bench/soak.py --minutes 8 --kill-every 60   # a check of the harness

Everything lives in a temporary folder: the corpus (``data/toy_mixed``, registered with
:func:`ace_lab.data.add_corpus` under ``ACE_LAB_USER_DATA``), the caches and the results. The
local smoke-tier server is started once; a :class:`~tests.reliability.fault_proxy.FaultProxy`
stands in front of it. First one uninterrupted round without faults is the reference; then
the worker (:mod:`tests.reliability.soak_worker`) runs round after round (a round: the study's
methods over every question, with a fresh LLM cache) and is killed at random times
(``--kill-every`` seconds on average). At the end: every record of every finished round exactly
once, their tables (and answers) equal to the reference's, no orphan process (llama,
``ace_lab.llm.server``, redis-server, the worker), every cache ``PRAGMA integrity_check`` ok with
no cached failure, and the reader never crashed (a line torn by a kill is a clear error).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ace_lab.config import load_settings  # noqa: E402
from ace_lab.data import add_corpus, load_dataset  # noqa: E402
from ace_lab.llm import server  # noqa: E402
from tests.reliability.fault_proxy import FaultProxy  # noqa: E402
from tests.reliability.soak_checks import (  # noqa: E402
    Watcher,
    cache_problems,
    compare_round,
    count_records,
    leftover_processes,
    summary,
)
from tests.reliability.soak_worker import CORPUS, TIMEOUT_S  # noqa: E402

SMOKE_TIER = "smollm135m"


def environment(root: Path) -> dict[str, str]:
    """The variables that put every folder ace_lab writes under ``root``."""
    env = {"ACE_LAB_USER_DATA": str(root / "user")}
    for name in ("cache", "results", "figures", "graphs"):
        env[f"ACE_LAB_{name.upper()}_DIR"] = str(root / name)
    return env


#: The session ids of every worker started (each its own session and process group).
SESSIONS: set[int] = set()


def worker(root: Path, url: str, prefix: str, rounds: int | None = None) -> subprocess.Popen:
    """The worker in its own session (a kill reaches its group; what it left is findable)."""
    cmd = [sys.executable, "-m", "tests.reliability.soak_worker", str(root), url, SMOKE_TIER]
    cmd += [prefix] + ([str(rounds)] if rounds else [])
    log = (root.parent / f"{root.name}-worker.log").open("a")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=log, start_new_session=True)
    SESSIONS.add(proc.pid)
    return proc


def supervise(args: argparse.Namespace, root: Path, url: str, rng: random.Random) -> int:
    """Run, kill and restart the worker until the time is up; the number of kills."""
    deadline = time.monotonic() + args.minutes * 60
    kills = 0
    while time.monotonic() < deadline:
        proc = worker(root, url, "soak")
        wait_s = min(rng.uniform(0.5, 1.5) * args.kill_every, deadline - time.monotonic())
        try:
            proc.wait(timeout=max(wait_s, 1.0))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            kills += 1
    (root / "stop").write_text("stop\n")  # the worker ends after the round it is in
    proc = worker(root, url, "soak")
    try:
        proc.wait(timeout=args.finish_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return kills


def soak(args: argparse.Namespace, base: Path) -> dict[str, Any]:
    os.environ.update(environment(base))
    docs = ROOT / "data" / "toy_mixed"
    add_corpus(CORPUS, docs / "documents", questions=docs / "questions.csv", progress=False)
    expected = {q.id for q in load_dataset(CORPUS).questions}
    settings = load_settings()
    settings = replace(settings, llm=replace(settings.llm, base_url=None, tier=SMOKE_TIER))
    started = time.monotonic()
    info = server.start(settings)
    upstream = f"http://127.0.0.1:{info.port}/v1"
    rng = random.Random(args.seed)
    try:
        ref = worker(base / "reference", upstream, "reference", rounds=1)
        if ref.wait() != 0:
            raise SystemExit(f"the reference round failed (see {base}/reference-worker.log)")
        proxy = FaultProxy(
            upstream,
            rate=args.fault_rate,
            seed=args.seed,
            hang_s=TIMEOUT_S + 1,
            retry_after_s=0.5,
            lifetime_s=args.minutes * 60 + 3600,
        )
        watcher = Watcher(base / "results")
        with proxy:
            watcher.start()
            kills = supervise(args, base / "soak", proxy.url, rng)
            watcher.stop()
            faults, requests = sum(proxy.fault_counts().values()), len(proxy.seen)
    finally:
        server.stop(settings)
    elapsed = time.monotonic() - started
    time.sleep(2)  # a stopped server's process leaves /proc
    orphans = sorted(leftover_processes(SESSIONS, {info.pid}, str(base)).items())
    reference = base / "results" / "reference-0000"
    finished = {p.name for p in (base / "soak" / "done").glob("*")}
    records = dup = lost = unfinished = 0
    differences: list[str] = []
    for folder in sorted((base / "results").glob("soak-*")):
        name = folder.name.removeprefix("soak-")
        n, d, lo = count_records(folder, expected)
        records, dup = records + n, dup + d
        if name not in finished:  # cut off by --finish-s: only duplicates are counted
            unfinished += 1
            continue
        lost += lo
        differences += [f"round {name}: {p}" for p in compare_round(folder, reference)]
    problems = cache_problems(base / "soak")
    return {
        "minutes": args.minutes,
        "kills": kills,
        "requests": requests,
        "faults": faults,
        "rounds": len(finished),
        "unfinished": unfinished,
        "records": records,
        "duplicates": dup,
        "lost": lost,
        "tables_equal": not differences,
        "reads": watcher.reads,
        "renders": watcher.renders,
        "torn_reads": watcher.torn,
        "reader_errors": len(watcher.errors),
        "time_s": round(elapsed),
        "orphans": len(orphans),
        "integrity": "ok" if not problems else f"{len(problems)} problems",
        "_details": differences + watcher.errors[:5] + problems[:5] + [str(o) for o in orphans],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=120.0, help="how long to kill and resume")
    parser.add_argument(
        "--kill-every", type=float, default=180.0, help="mean seconds between kills (0.5-1.5x)"
    )
    parser.add_argument("--fault-rate", type=float, default=0.2, help="endpoint faults")
    parser.add_argument("--finish-s", type=float, default=600.0, help="time for the last round")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args(argv)
    # A SIGTERM (an operator's kill) unwinds like Ctrl-C, so the server it started is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory(prefix="ace-soak-") as tmp:
        base = args.keep or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        row = soak(args, base)
    details = row.pop("_details")
    print(summary(row))
    for line in details:
        print("  " + line)
    held = (
        row["rounds"] > 0
        and not (row["duplicates"] or row["lost"] or row["orphans"] or row["reader_errors"])
        and row["tables_equal"]
        and row["integrity"] == "ok"
    )
    print("held" if held else "FAILED")
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
