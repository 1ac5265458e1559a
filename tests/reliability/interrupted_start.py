"""An interrupted server start leaves no orphan (issue 40, item 1).

A child process starts the local smoke-tier server (``server.start``, what ``ace-lab llm ping``
and ``llm start`` do) and is sent SIGINT, SIGTERM or SIGKILL as soon as the server's state file
names the server process; then ``llm stop`` runs (``server.stop``). The attempt holds when the
server process is gone within 30 s and no state file is left. Needs the smoke model (``make
models``), like the other rows that start a server.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ace_lab.config import Settings, load_settings
from ace_lab.llm import server
from ace_lab.llm.process import pid_alive

ROW = "interrupted server start leaves no orphan"
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
REPEATS_FULL, REPEATS_FAST = 3, 1
SMOKE_TIER = "smollm135m"
_START_IN_CHILD = """
import pickle, sys
from ace_lab.llm import server
from ace_lab.llm.process import pid_alive
server.start(pickle.load(open(sys.argv[1], "rb")))
"""


def smoke_settings(root: Path) -> Settings:
    """The smoke tier, local, with its server state and caches under ``root``."""
    base = load_settings()
    llm = replace(base.llm, base_url=None, model=None, tier=SMOKE_TIER)
    return replace(base, cache_dir=root / "cache", results_dir=root / "results", llm=llm)


def one_attempt(root: Path, sig: signal.Signals) -> tuple[str | None, bool]:
    """What went wrong (None: held), and whether the signal landed while the server loaded."""
    settings = smoke_settings(root)
    root.mkdir(parents=True, exist_ok=True)
    pickled = root / "settings.pkl"
    pickled.write_bytes(pickle.dumps(settings))
    parent = subprocess.Popen([sys.executable, "-c", _START_IN_CHILD, str(pickled)])
    state = server._state_path(settings, SMOKE_TIER)
    deadline = time.monotonic() + 120
    while not state.is_file() and parent.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not state.is_file():
        parent.kill()
        parent.wait()
        return "the start wrote no state file", False
    written = json.loads(state.read_text())
    child = int(written["pid"])
    loading = parent.poll() is None and not server._healthy(int(written["port"]))
    parent.send_signal(sig)
    parent.wait(timeout=60)
    server.stop(settings)  # what `ace-lab llm stop` does
    deadline = time.monotonic() + 30
    while pid_alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    if pid_alive(child):
        os.kill(child, signal.SIGKILL)  # the orphan is reported, then ended
        return f"{sig.name}: server {child} outlived its start", loading
    if state.exists():
        return f"{sig.name}: the state file was left", loading
    return None, loading


def measure(full: bool) -> list[dict[str, Any]]:
    """One row: each signal ``REPEATS`` times, during a real start of the smoke-tier server."""
    repeats = REPEATS_FULL if full else REPEATS_FAST
    failures: list[str] = []
    attempts = loading = 0
    with tempfile.TemporaryDirectory(prefix="ace-start-") as tmp:
        for i in range(repeats):
            for sig in SIGNALS:
                problem, during_load = one_attempt(Path(tmp) / f"{sig.name}-{i}", sig)
                attempts, loading = attempts + 1, loading + during_load
                failures += [problem] if problem else []
    note = (
        f"SIGINT/SIGTERM/SIGKILL x{repeats} of a process starting the smoke server, then "
        f"llm stop; {loading} of {attempts} signals landed while it loaded; 0 orphans wanted"
    )
    if failures:
        note += "; " + "; ".join(failures[:3])
    return [
        {
            "property": ROW,
            "attempts": attempts,
            "held": attempts - len(failures),
            "failed": len(failures),
            "note": note,
        }
    ]
