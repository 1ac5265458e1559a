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

``measure(full)`` returns the two table rows; ``test_crash_resume.py`` asserts they held.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.reliability import crash_driver as driver

REPO = Path(__file__).resolve().parents[2]
SEED = 13
BUILD_ROW = "kill -9 during a graph build"
RUN_ROW = "kill -9 during an evaluation run"
#: Per-call model delay of the children: kills land in extraction, corpus calls or answering.
BUILD_DELAY_S, RUN_DELAY_S = 0.12, 0.25
#: Record fields that depend on timing or on what the cache held when the kill came.
CHUNK_VOLATILE = {"seconds", "cache_hits"}
RESULT_VOLATILE = {"wall_s", "cold_wall_s", "llm_s", "cache_hits", "model_calls"}
STEP_VOLATILE = {"elapsed", "llm_s"}
#: ``cost`` holds seconds per chunk and the corpus stage's tokens net of cache hits.
META_VOLATILE = {"build_wall_s", "last_run_wall_s", "cost"}


# ----------------------------------------------------------------------------- files
def strict_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every line of ``path`` as a JSON object; raises ValueError at the first bad byte."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        raise ValueError(f"{path}: last line is not terminated (torn write)")
    out = []
    for number, line in enumerate(data.split(b"\n")[:-1], 1):
        row = json.loads(line.decode("utf-8"))
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{number}: not a JSON object")
        out.append(row)
    return out


def whole_lines(path: Path) -> list[dict[str, Any]]:
    """The lines of ``path`` that a kill left whole (what must survive the resume)."""
    if not path.is_file():
        return []
    rows = []
    for line in path.read_bytes().split(b"\n")[:-1]:  # the part after the last newline is torn
        try:
            rows.append(json.loads(line.decode("utf-8")))
        except ValueError:
            rows.append({"__corrupt__": line[:80].decode("utf-8", "replace")})
    return rows


def integrity(db: Path) -> str:
    if not db.is_file():
        return "ok"
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def jsonl_problems(root: Path) -> list[str]:
    problems = []
    for path in sorted(root.rglob("*.jsonl")):
        try:
            strict_jsonl(path)
        except ValueError as exc:
            problems.append(f"corrupt: {exc}")
    return problems


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


# -------------------------------------------------------------------------- outputs
def drop(row: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in keys}


def survived(seen: dict[str, dict[str, Any]], final: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Lines seen whole after a kill that the final files no longer hold unchanged."""
    problems = []
    for key, row in seen.items():
        name = key.split("|", 1)[0]
        if "__corrupt__" in row:
            problems.append(f"{name}: a corrupt line after a kill: {row['__corrupt__']!r}")
        elif name in final and row not in final[name]:
            problems.append(f"{name}: a finished line was lost or redone: {str(row)[:80]}")
    return problems


def build_outputs(work: Path) -> dict[str, Any]:
    from ace_lab.graph.tables import GraphTables

    folder = driver.run_dir(work)
    return {
        "records": strict_jsonl(folder / "hirag_extract.jsonl"),
        "archive": strict_jsonl(folder / "llm_responses.jsonl"),
        "tables": GraphTables.load(folder / "tables"),
    }


def replay_calls(work: Path) -> int:
    """Model calls a rebuild makes from the build's folder with an empty response cache."""
    from ace_lab.graph.build import build_graph
    from ace_lab.llm import LLM
    from tests.support.extraction import hierarchy_config
    from tests.support.scripted import ScriptedClient

    copy = work.parent / f"{work.name}-replay"
    shutil.copytree(
        driver.run_dir(work), driver.run_dir(copy), ignore=shutil.ignore_patterns("tables")
    )
    client = ScriptedClient(lambda kwargs: RuntimeError("a replay must not call the model"))
    llm = LLM(driver.work_settings(copy), client=client)
    with driver.hashed_layers():
        build_graph(
            driver.DATASET,
            driver.N,
            driver.FAMILY,
            settings=driver.work_settings(copy),
            llm=llm,
            progress=False,
            with_index=False,
            config=hierarchy_config(),
        )
    return len(client.requests)


def compare_build(ref: dict[str, Any], work: Path, seen: dict[str, dict[str, Any]]) -> list[str]:
    got = build_outputs(work)
    problems = survived(seen, {"hirag_extract.jsonl": got["records"]})
    ids = [r["chunk_id"] for r in got["records"]]
    if len(ids) != len(set(ids)):
        problems.append(f"duplicated chunk records: {len(ids) - len(set(ids))}")
    want = {r["chunk_id"]: drop(r, CHUNK_VOLATILE) for r in ref["records"]}
    have = {r["chunk_id"]: drop(r, CHUNK_VOLATILE) for r in got["records"]}
    if have != want:
        diff = sorted(k for k in want.keys() | have.keys() if want.get(k) != have.get(k))
        problems.append(f"chunk records differ from the uninterrupted build: {diff[:3]}")
    # The archive holds the responses the *last* process used: after a resume it lacks those of
    # chunks finished before the kill (their records make them unnecessary). So: nothing in it
    # that the uninterrupted build lacks, and a replay from the folder needs no model call.
    if extra := [r["key"] for r in got["archive"] if r not in ref["archive"]]:
        problems.append(f"llm_responses.jsonl has {len(extra)} rows the uninterrupted build lacks")
    a, b = got["tables"], ref["tables"]
    if not (a.nodes.equals(b.nodes) and a.edges.equals(b.edges)):
        problems.append("graph tables differ from the uninterrupted build's")
    if drop(a.meta, META_VOLATILE) != drop(b.meta, META_VOLATILE):
        keys = [k for k in a.meta.keys() | b.meta.keys() if a.meta.get(k) != b.meta.get(k)]
        problems.append(f"graph meta differs: {sorted(keys)}")
    if (calls := replay_calls(work)) != 0:
        problems.append(f"a replay from the resumed folder made {calls} model calls")
    return problems


def result_row(row: dict[str, Any]) -> dict[str, Any]:
    steps = [drop(s, STEP_VOLATILE) for s in row.get("steps", [])]
    return drop(row, RESULT_VOLATILE) | {"steps": steps}


def compare_run(
    ref: list[dict[str, Any]], work: Path, seen: dict[str, dict[str, Any]]
) -> list[str]:
    folder = work / "results" / driver.STUDY
    records = strict_jsonl(folder / f"{driver.METHOD}.jsonl")
    problems = survived(seen, {f"{driver.METHOD}.jsonl": records})
    ids = [r["id"] for r in records]
    if len(ids) != len(set(ids)):
        problems.append(f"duplicated results records: {len(ids) - len(set(ids))}")
    if sorted(map(result_row, records), key=lambda r: r["id"]) != sorted(
        map(result_row, ref), key=lambda r: r["id"]
    ):
        problems.append("results records differ from the uninterrupted run's")
    manifest = json.loads((folder / "manifest.json").read_text())
    entry = manifest["methods"][driver.METHOD]
    if entry.get("records") != len(ref) or entry.get("errors_last_run") != 0:
        problems.append(
            f"manifest: {entry.get('records')} records, {entry.get('errors_last_run')} errors"
        )
    for path in folder.glob("*.errors.jsonl"):
        first = path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
        problems.append(f"an errors file was written: {first[:2000]}")
    return problems


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
