"""What the soak (``bench/soak.py``) checks while it runs and at its end: a concurrent reader of
the study's records, a notebook-like re-rendering of its tables, records exactly once, tables
equal to an uninterrupted run's, no orphan process and the LLM caches' integrity."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.eval.reporting.tables import COST_COLUMNS, main_table
from ace_lab.eval.studies.jsonl import ResultsError, read_jsonl, record_files
from ace_lab.eval.studies.study import load_results

#: The table columns that depend on timing or on how often a call was retried, not on answers.
VOLATILE = {*COST_COLUMNS, "wall_s"}


def tables(study: str) -> pd.DataFrame:
    """What a notebook shows of a study: its main table, less the timing columns."""
    frame = main_table(load_results(study), n_resamples=200)
    return frame.drop(columns=[c for c in frame.columns if c in VOLATILE])


def answers(study_dir: Path) -> dict[tuple[str, str], str]:
    """Every record's answer, keyed by (method file, question id)."""
    return {
        (path.stem, str(rec.get("id"))): str(rec.get("answer"))
        for path in record_files(study_dir)
        for rec in read_jsonl(path)
    }


def count_records(study_dir: Path, expected_ids: set[str]) -> tuple[int, int, int]:
    """Records, records written more than once, and expected records missing, over a study's
    files (one file per method)."""
    records = dup = lost = 0
    for path in record_files(study_dir):
        counts = Counter(str(rec.get("id")) for rec in read_jsonl(path))
        records += sum(counts.values())
        dup += sum(n - 1 for n in counts.values() if n > 1)
        lost += len(expected_ids - set(counts))
    return records, dup, lost


class Watcher(threading.Thread):
    """Reads every study's records (``every_s``) and re-renders their tables (``render_s``),
    as a notebook open on a running study would; counts reads, renders and what went wrong."""

    def __init__(self, results: Path, every_s: float = 0.5, render_s: float = 5.0) -> None:
        super().__init__(daemon=True)
        self.results, self.every_s, self.render_s = results, every_s, render_s
        self.reads = self.renders = self.torn = 0
        self.errors: list[str] = []
        self._halt = threading.Event()

    def run(self) -> None:
        last_render = 0.0
        while not self._halt.wait(self.every_s):
            folders = sorted(p for p in self.results.glob("*") if p.is_dir())
            for folder in folders[-3:]:  # the rounds in progress (a 2-hour soak makes hundreds)
                try:
                    for path in record_files(folder):
                        read_jsonl(path)
                    self.reads += 1
                except ResultsError:  # a line torn by a kill, cut by the next run: clear error
                    self.torn += 1
                except Exception as exc:
                    self.errors.append(f"read {folder.name}: {type(exc).__name__}: {exc}"[:160])
            if time.monotonic() - last_render >= self.render_s:
                last_render = time.monotonic()
                self._render()

    def _render(self) -> None:
        folders = sorted(p for p in self.results.glob("*") if p.is_dir() and record_files(p))
        for folder in folders[-2:]:  # the round in progress and the one before
            try:
                tables(folder.name)
                self.renders += 1
            except (ResultsError, FileNotFoundError):
                self.torn += 1
            except Exception as exc:
                self.errors.append(f"render {folder.name}: {type(exc).__name__}: {exc}"[:160])

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=30)


def leftover_processes(sessions: set[int], pids: set[int], marker: str) -> dict[int, str]:
    """pid → command line of every live process the soak started: in one of the workers'
    ``sessions``, one of ``pids`` (the LLM server), or naming ``marker`` (the soak's folder)
    in its command line. Other users' servers on the machine are not counted."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            fields = (entry / "stat").read_text().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        zombie, session = fields[0] == "Z", int(fields[3])
        ours = session in sessions or int(entry.name) in pids or marker in cmd
        if ours and not zombie:
            found[int(entry.name)] = cmd.strip()[:120]
    return found


def cache_databases(root: Path) -> list[Path]:
    return sorted(
        p for p in root.rglob("*") if p.is_file() and p.read_bytes()[:16] == b"SQLite format 3\0"
    )


def cache_problems(root: Path) -> list[str]:
    """Every LLM cache under ``root``: ``PRAGMA integrity_check`` ok and no cached failure
    (an empty reply) in its ``responses`` table."""
    problems = []
    for db in cache_databases(root):
        conn = sqlite3.connect(db)
        try:
            check = str(conn.execute("PRAGMA integrity_check").fetchone()[0])
            if check != "ok":
                problems.append(f"{db.relative_to(root)}: {check}")
            tables_in = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if "responses" in tables_in:
                empty = conn.execute("SELECT COUNT(*) FROM responses WHERE text = ''").fetchone()
                if empty[0]:
                    problems.append(f"{db.relative_to(root)}: {empty[0]} cached empty replies")
        finally:
            conn.close()
    return problems


def compare_round(study_dir: Path, reference: Path) -> list[str]:
    """How one finished round differs from the uninterrupted reference (empty: identical)."""
    problems = []
    ours, ref = answers(study_dir), answers(reference)
    if ours != ref:
        diff = sorted(k for k in ours.keys() | ref.keys() if ours.get(k) != ref.get(k))
        problems.append(f"{len(diff)} answers differ from the reference, e.g. {diff[:2]}")
    try:
        pd.testing.assert_frame_equal(tables(study_dir.name), tables(reference.name))
    except AssertionError as exc:
        problems.append(f"table differs: {str(exc).splitlines()[0][:120]}")
    return problems


def summary(rows: dict[str, Any]) -> str:
    """The soak's table: one line of names, one of values."""
    frame = pd.DataFrame([rows])
    return frame.to_string(index=False)
