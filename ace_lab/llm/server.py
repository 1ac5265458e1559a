"""The embedded LLM server: xllamacpp serving a local GGUF tier on 127.0.0.1.

The server runs as a detached process so that one started by a notebook is reused by the next
notebook, the CLI and the tests. Its pid, port and model are kept in a state file under the cache
dir; ``start`` reuses a live server of the same tier and weights, ``stop`` ends it by pid
(SIGTERM, wait, then SIGKILL: a process serving xllamacpp may ignore SIGTERM for a while).

Run directly (``python -m ace_lab.llm.server --model PATH --port N ...``) it serves until killed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from filelock import FileLock

from ace_lab.config import Settings
from ace_lab.llm.models import get_tier, prepare_model


class ServerError(RuntimeError):
    """The local server could not be started or reached."""


@dataclass(frozen=True)
class ServerInfo:
    pid: int
    port: int
    tier: str
    model_path: str
    sha256: str
    threads: int
    ctx_size: int
    parallel: int
    log_path: str
    started_at: float

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _state_dir(settings: Settings) -> Path:
    return Path(settings.cache_dir) / "llm_server"


def _state_path(settings: Settings, tier: str) -> Path:
    return _state_dir(settings) / f"{tier}.json"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited child not yet reaped) still answers kill(0): check /proc where we can.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[-1][:1] != "Z"
    except OSError:
        return True


def _healthy(port: int, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=timeout) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError, TimeoutError):
        return False


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def status(settings: Settings, tier: str | None = None) -> ServerInfo | None:
    """The live server for ``tier`` (default: the configured one), or None.

    A state file whose process is gone or unhealthy is removed.
    """
    tier = tier or settings.llm.tier
    path = _state_path(settings, tier)
    if not path.is_file():
        return None
    try:
        info = ServerInfo(**json.loads(path.read_text()))
    except (ValueError, TypeError):
        path.unlink(missing_ok=True)
        return None
    if _pid_alive(info.pid) and _healthy(info.port):
        return info
    if not _pid_alive(info.pid):
        path.unlink(missing_ok=True)
    return None


def _log_tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def start(settings: Settings, tier: str | None = None, wait_s: float = 180.0) -> ServerInfo:
    """Start (or reuse) the local server for ``tier`` and wait until it answers /health."""
    tier = tier or settings.llm.tier
    spec = get_tier(tier)
    state_dir = _state_dir(settings)
    state_dir.mkdir(parents=True, exist_ok=True)
    with FileLock(str(_state_path(settings, tier)) + ".lock", timeout=wait_s + 60):
        live = status(settings, tier)
        if live is not None and live.sha256 == spec.sha256:
            return live
        if live is not None:
            stop(settings, tier)
        model_path = prepare_model(tier, settings.model_dir)
        port = settings.llm.port if _port_free(settings.llm.port) else _free_port()
        log_path = state_dir / f"{tier}.log"
        cmd = [
            sys.executable, "-m", "ace_lab.llm.server",
            "--model", str(model_path),
            "--alias", tier,
            "--port", str(port),
            "--threads", str(settings.llm.threads),
            "--ctx-size", str(settings.llm.ctx_size),
            "--parallel", str(settings.llm.parallel),
        ]  # fmt: skip
        with log_path.open("ab") as log:
            proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # survives the notebook kernel that started it
            )
        info = ServerInfo(
            pid=proc.pid,
            port=port,
            tier=tier,
            model_path=str(model_path),
            sha256=spec.sha256,
            threads=settings.llm.threads,
            ctx_size=settings.llm.ctx_size,
            parallel=settings.llm.parallel,
            log_path=str(log_path),
            started_at=time.time(),
        )
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise ServerError(
                    f"local LLM server for tier {tier!r} exited with code {proc.returncode}; "
                    f"log {log_path}:\n{_log_tail(log_path)}"
                )
            if _healthy(port):
                _state_path(settings, tier).write_text(json.dumps(asdict(info), indent=2))
                return info
            time.sleep(0.25)
        _terminate(proc.pid)
        raise ServerError(
            f"local LLM server for tier {tier!r} did not become healthy within {wait_s:.0f} s; "
            f"log {log_path}:\n{_log_tail(log_path)}"
        )


def _terminate(pid: int, grace_s: float = 10.0) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            return
        time.sleep(0.1)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return


def stop(settings: Settings, tier: str | None = None) -> bool:
    """Stop the server for ``tier`` by pid; True if one was running."""
    tier = tier or settings.llm.tier
    path = _state_path(settings, tier)
    if not path.is_file():
        return False
    try:
        info = ServerInfo(**json.loads(path.read_text()))
    except (ValueError, TypeError):
        path.unlink(missing_ok=True)
        return False
    was_alive = _pid_alive(info.pid)
    _terminate(info.pid)
    path.unlink(missing_ok=True)
    return was_alive


def serve(
    model: str, port: int, threads: int, ctx_size: int, parallel: int, alias: str
) -> None:  # pragma: no cover - runs in the server process
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.model_alias = alias
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_parallel = parallel
    params.n_ctx = ctx_size * parallel  # llama.cpp splits n_ctx across the parallel slots
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.cache_prompt = True  # reuse the shared prompt prefix (fixed instructions first)
    server = xllamacpp.Server(params)
    print(f"ace_lab llm server: {alias} on {server.listening_address}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    while True:
        signal.pause()


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - server process
    parser = argparse.ArgumentParser(description="Serve a GGUF model with xllamacpp.")
    parser.add_argument("--model", required=True)
    parser.add_argument("--alias", default="local")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx-size", type=int, default=8192)
    parser.add_argument("--parallel", type=int, default=1)
    args = parser.parse_args(argv)
    serve(args.model, args.port, args.threads, args.ctx_size, args.parallel, args.alias)


if __name__ == "__main__":  # pragma: no cover
    main()
