"""A private LLM server for side-by-side benches: its own process on a free port, never the
shared one of :mod:`ace_lab.llm.server`; the caller ends it with ``terminate(proc.pid)``."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from ace_lab.config import ServingOptions
from ace_lab.llm import serving
from ace_lab.llm.server import (
    SERVER_MODULE,
    ServerError,
    _free_port,
    _healthy,
    _log_tail,
)
from ace_lab.llm.server import _terminate as terminate


def start_private(
    model: Path,
    alias: str,
    options: ServingOptions,
    *,
    threads: int,
    ctx_size: int,
    parallel: int,
    model_dir: Path,
    log: Path,
    wait_s: float = 300.0,
) -> tuple[subprocess.Popen, int]:
    """A server of its own (never the shared one) on a free port, healthy; the caller ends it
    with :func:`terminate` (benches compare settings side by side this way)."""
    port = _free_port()
    cmd = [sys.executable, "-m", SERVER_MODULE, "--model", str(model), "--alias", alias,
           "--port", str(port), "--threads", str(threads), "--ctx-size", str(ctx_size),
           "--parallel", str(parallel), "--model-dir", str(model_dir),
           *serving.options_argv(options)]  # fmt: skip
    with log.open("ab") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + wait_s
    while not _healthy(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            terminate(proc.pid)
            raise ServerError(f"private {alias} server did not start; log {log}:\n{_log_tail(log)}")
        time.sleep(0.25)
    return proc, port
