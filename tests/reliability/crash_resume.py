"""kill -9 during a graph build and during an evaluation run, then resume (issue 13, item 3).

Each build or run is a real process: a worker of the fork server in
:mod:`tests.reliability.crash_driver` (the toy corpus, a scripted model with a small delay per
call). The parent kills it with SIGKILL at a seeded random time after it starts, checks what the
kill left (the SQLite response cache must pass ``PRAGMA integrity_check``; every whole line
written so far is remembered), and starts it again, until the target number of kills has landed
mid-work. A run that finishes before its kill ends an episode, which is then checked against an
uninterrupted reference run:

- every JSON-lines file under the work dir parses strictly (whole lines, UTF-8, objects), so no
  corrupt or torn line is left behind;
- no finished chunk or record is lost or redone: every line seen after a kill is in the final
  file unchanged, and each chunk / question id appears exactly once;
- the output equals the uninterrupted run's: the same per-chunk records and results records
  (apart from timing and cache-hit counts, which depend on when the kill came), the same graph
  tables and meta (apart from times and the cost summary), a response archive with nothing the
  uninterrupted one lacks, and a replay of the resumed build from its own folder with an empty
  cache and a model that always fails makes no call.

What the kills left and the resumed outputs are checked by :mod:`tests.reliability.crash_outputs`.
``measure(full)`` returns the two table rows; ``test_crash_resume.py`` asserts they held.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.reliability import crash_driver as driver
from tests.reliability.crash_outputs import (
    build_outputs,
    compare_build,
    compare_run,
    integrity,
    jsonl_problems,
    strict_jsonl,
    whole_lines,
)

REPO = Path(__file__).resolve().parents[2]
SEED = 13
BUILD_ROW = "kill -9 during a graph build"
RUN_ROW = "kill -9 during an evaluation run"
#: Per-call model delay of the children: kills land in extraction, corpus calls or answering.
BUILD_DELAY_S, RUN_DELAY_S = 0.12, 0.25


# ------------------------------------------------------------------------- processes
class Workers:
    """The fork server (:func:`tests.reliability.crash_driver.serve`) and its workers.

    The server is started with ``subprocess.Popen``; each build or run is a worker process it
    forks, which this side kills by pid with ``os.kill(pid, SIGKILL)``.
    """

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, OMP_NUM_THREADS="1", ACE_LAB_CACHE_DIR=str(root / "cache"))
        with (root / "workers.log").open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.reliability.crash_driver", "serve"],
                cwd=REPO,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                env=env,
            )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        if self._next(300) != "ready":
            raise RuntimeError(f"the fork server did not start (see {root / 'workers.log'})")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put("")  # EOF: the server is gone

    def _next(self, timeout: float) -> str:
        line = self.lines.get(timeout=timeout)
        if not line:
            raise RuntimeError("the fork server exited")
        return line

    def start(self, kind: str, work: Path, delay_s: float, *extra: str) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.write(" ".join([kind, str(work), str(delay_s), *extra]) + "\n")
        self.proc.stdin.flush()
        return int(self._next(60))

    def kill_after(self, pid: int, seconds: float) -> bool:
        """SIGKILL worker ``pid`` after ``seconds``; False if it finished first (successfully)."""
        try:
            line = self._next(seconds)
        except queue.Empty:
            with contextlib.suppress(ProcessLookupError):  # it may have just ended
                os.kill(pid, signal.SIGKILL)
            line = self._next(60)
            killed = True
        else:
            killed = False
        _, who, code = line.split()
        if int(who) != pid:
            raise RuntimeError(f"unexpected line from the fork server: {line!r}")
        if killed and int(code) not in (-signal.SIGKILL, 0):
            raise RuntimeError(f"worker {pid} exited with {code}")
        if not killed and int(code) != 0:
            raise RuntimeError(f"worker {pid} failed with {code} (see the workers.log)")
        return killed and int(code) == -signal.SIGKILL

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(60)


def reference(workers: Workers, kind: str, work: Path, delay_s: float, *extra: str) -> float:
    """Run a worker to completion; its seconds from fork to exit (the kill window)."""
    began = time.perf_counter()
    if workers.kill_after(workers.start(kind, work, delay_s, *extra), 600):
        raise RuntimeError(f"the reference {kind} run did not finish")
    return time.perf_counter() - began


def campaign(
    kills: int,
    kind: str,
    root: Path,
    delay_s: float,
    extra: tuple[str, ...],
    watched: Callable[[Path], list[Path]],
    check: Callable[[Path, dict[str, dict[str, Any]]], list[str]],
) -> dict[str, Any]:
    """Kill ``kind`` workers at random points until ``kills`` landed; check every episode."""
    workers = Workers(root)
    try:
        return _campaign(workers, kills, kind, root, delay_s, extra, watched, check)
    finally:
        workers.close()


def _campaign(
    workers: Workers,
    kills: int,
    kind: str,
    root: Path,
    delay_s: float,
    extra: tuple[str, ...],
    watched: Callable[[Path], list[Path]],
    check: Callable[[Path, dict[str, dict[str, Any]]], list[str]],
) -> dict[str, Any]:
    window = reference(workers, kind, root / "reference", delay_s, *extra)
    rng = random.Random(SEED)
    landed = held = episodes = finished_first = 0
    problems: list[str] = []
    while landed < kills and episodes < 4 * kills:
        work = root / f"episode-{episodes}"
        episodes += 1
        seen: dict[str, dict[str, Any]] = {}  # "file|line text" -> row, every line seen whole
        episode_kills, episode_problems = 0, []
        while landed + episode_kills < kills:
            pid = workers.start(kind, work, delay_s, *extra)
            if not workers.kill_after(pid, rng.uniform(0.0, window)):
                finished_first += 1
                break
            episode_kills += 1
            if (verdict := integrity(work / "cache" / "llm_cache.sqlite")) != "ok":
                episode_problems.append(f"integrity_check after a kill: {verdict}")
            for path in watched(work):
                for row in whole_lines(path):
                    seen[f"{path.name}|{json.dumps(row, sort_keys=True)}"] = row
        else:  # resume to completion
            workers.kill_after(workers.start(kind, work, delay_s, *extra), 600)
        if integrity(work / "cache" / "llm_cache.sqlite") != "ok":
            episode_problems.append("integrity_check failed after the resume")
        episode_problems += jsonl_problems(work)
        try:
            episode_problems += check(work, seen)
        except Exception as exc:  # an unreadable output is a failed episode, not a crash
            episode_problems.append(f"the output could not be checked: {exc!r}")
        landed += episode_kills
        if episode_problems:
            problems += [f"episode {episodes - 1}: {p}" for p in episode_problems]
        else:
            held += episode_kills
    return {
        "attempts": landed,
        "held": held,
        "failed": landed - held,
        "note": (
            f"{landed} kills at seeded random points (seed {SEED}) of a {window:.1f} s run, "
            f"{episodes} resumed episodes ({finished_first} runs ended before their kill)"
            + (f"; {problems[0]}" if problems else "")
        ),
        "problems": problems,
    }


# -------------------------------------------------------------------------- measure
def measure_build(kills: int, root: Path) -> dict[str, Any]:
    row = campaign(
        kills,
        "build",
        root,
        BUILD_DELAY_S,
        (),
        lambda w: [driver.run_dir(w) / "hirag_extract.jsonl"],
        lambda w, seen: compare_build(build_outputs(root / "reference"), w, seen),
    )
    return {"property": BUILD_ROW, **row}


def measure_run(kills: int, root: Path, graph: Path | None = None) -> dict[str, Any]:
    """``graph``: a finished build's work dir (default: build one here, in this process)."""
    if graph is None:
        graph = root / "graph"
        driver.build(graph, 0.0, announce=False)
    tables = str(driver.run_dir(graph) / "tables")
    results = lambda w: w / "results" / driver.STUDY / f"{driver.METHOD}.jsonl"  # noqa: E731
    row = campaign(
        kills,
        "run",
        root,
        RUN_DELAY_S,
        (tables,),
        lambda w: [results(w)],
        lambda w, seen: compare_run(strict_jsonl(results(root / "reference")), w, seen),
    )
    return {"property": RUN_ROW, **row}


def measure(full: bool) -> list[dict[str, Any]]:
    """The two table rows: ≥ 20 kills each at full scale, 4 in the fast version."""
    kills = 20 if full else 4
    with tempfile.TemporaryDirectory(prefix="ace-crash-") as tmp:
        build = measure_build(kills, Path(tmp) / "build")
        run = measure_run(kills, Path(tmp) / "run", graph=Path(tmp) / "build" / "reference")
    return [{k: v for k, v in r.items() if k != "problems"} for r in (build, run)]
