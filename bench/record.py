"""A bench's printed table as committed results: ``<out>.json``, ``.csv`` and ``.md``.

``<out>.json`` holds the rows and, per run (a *column* of the table: graph_scale merges a
``--sizes 1000000`` run into an earlier one), the exact command line, the UTC date, the load
average at the start and the end, the CPU count and a note on the machine. ``<out>.md`` is the
printed table, its first line the command that regenerates it, one footnote per run under it;
the documentation copies it verbatim (the ``table`` figure of
:mod:`ace_lab.eval.reporting.docs_numbers`).
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import sys
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def command_line(argv: list[str] | None = None) -> str:
    """The command that ran this process, its interpreter and script relative to the repository
    (``.venv/bin/python bench/graph_scale.py --out results/bench/graph_scale``)."""
    args = list(sys.argv if argv is None else argv)

    def short(path: str) -> str:
        resolved = Path(path).absolute()
        return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else path

    python = short(sys.executable) if Path(sys.executable).is_absolute() else sys.executable
    return shlex.join([python, short(args[0]), *args[1:]])


def machine_note(extra: str = "") -> str:
    """The processor, CPU count, system and Python of this machine, then ``extra``."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [line for line in cpuinfo.read_text().splitlines() if line.startswith("model name")]
        model = names[0].split(":", 1)[1].strip() if names else model
    note = (
        f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )
    return f"{note}; {extra}" if extra else note


@dataclass
class Run:
    """One run of a bench: what ran, when, and how busy the machine was."""

    command: str
    date: str = field(default_factory=lambda: datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    load_start: tuple[float, ...] = field(default_factory=os.getloadavg)
    load_end: tuple[float, ...] = ()
    cpus: int = field(default_factory=lambda: os.cpu_count() or 0)
    machine: str = field(default_factory=machine_note)
    columns: list[str] = field(default_factory=list)
    note: str = ""  # e.g. where a column converted from a log came from

    def finish(self) -> Run:
        """This run with the load average at its end."""
        self.load_end = tuple(os.getloadavg())
        return self

    def footnote(self) -> str:
        """One line: command, date, load average (1 min) at the start and the end, machine."""
        cols = f"{', '.join(self.columns)}: " if self.columns else ""
        load = (
            f", load average (1 min) {self.load_start[0]:.1f} at the start, "
            f"{self.load_end[0]:.1f} at the end"
            if self.load_start and self.load_end
            else ""
        )
        note = f"; {self.note}" if self.note else ""
        return f"{cols}`{self.command}`, {self.date}{load}; {self.machine}{note}"


def write(out: Path, rows: list[dict[str, Any]], table: str, runs: list[Run], **extra: Any) -> None:
    """``<out>.json`` (``rows``, ``runs``, ``extra``), ``<out>.csv`` (``rows``) and ``<out>.md``
    (the regenerating command, ``table``, one footnote per run)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    record = {"rows": rows, "runs": [asdict(r) for r in runs], **extra}
    out.with_suffix(".json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    pd.DataFrame(rows).to_csv(out.with_suffix(".csv"), index=False)
    out.with_suffix(".md").write_text(markdown(table, runs))


def publish(out: Path, rows: list[dict[str, Any]], run: Run) -> None:
    """Print ``rows`` as a markdown table and write them with ``run`` finished (:func:`write`):
    the end of a bench that makes one table in one run."""
    from ace_lab.eval.reporting.export import to_markdown

    table = to_markdown(pd.DataFrame(rows))
    print(table)
    write(out, rows, table, [run.finish()])


def markdown(table: str, runs: list[Run]) -> str:
    """``<out>.md``: the commands that regenerate it, ``table``, one footnote per run."""
    notes = "\n".join(f"- {r.footnote()}" for r in runs)
    commands = " and ".join(f"`{r.command}`" for r in runs)
    return f"Regenerate with {commands}.\n\n{table.strip()}\n\n{notes}\n"


def read(out: Path) -> tuple[list[dict[str, Any]], list[Run], dict[str, Any]]:
    """The rows, runs and other keys of ``<out>.json`` (empty when there is none)."""
    path = Path(out).with_suffix(".json")
    if not path.is_file():
        return [], [], {}
    record = json.loads(path.read_text())
    runs = [
        Run(**{**r, "load_start": tuple(r["load_start"]), "load_end": tuple(r["load_end"])})
        for r in record.pop("runs")
    ]
    return record.pop("rows"), runs, record
