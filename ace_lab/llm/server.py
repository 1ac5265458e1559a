"""The embedded LLM server: a local GGUF tier served on 127.0.0.1 (backends: ``serving``).

The server runs as a detached process so that one started by a notebook is reused by the next
notebook, the CLI and the tests. Its pid, port and model are kept in a state file under the cache
dir; ``start`` reuses a live server of the same tier and weights, ``stop`` ends it by pid
(SIGTERM, wait, then SIGKILL: a process serving xllamacpp may ignore SIGTERM for a while).

A state file can outlive its server and its pid be reused by any process, so a pid is only
signalled once shown to be *our* server (:func:`is_our_server`); a stale state file is removed
without a signal. Signals go through a pidfd, so a pid reused after the check is never hit.

Run directly (``python -m ace_lab.llm.server --model PATH --port N ...``) it serves until killed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock

from ace_lab.config import ServingOptions, Settings
from ace_lab.llm import serving
from ace_lab.llm.models import get_tier, prepare_model
from ace_lab.llm.process import pid_alive as _pid_alive
from ace_lab.llm.process import terminate as _terminate
from ace_lab.llm.serving import HOST

#: ``-m`` target of the server process, the mark :func:`is_our_server` looks for.
SERVER_MODULE = "ace_lab.llm.server"
#: No prompt-prefix reuse: llama.cpp is not batch-invariant (``bench/answer_determinism.py``).
PROMPT_CACHE = ServingOptions().prompt_cache
#: Pids of the servers this process launched: :func:`stop_own` ends only these.
_LAUNCHED: set[int] = set()


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
    proc_start: int | None = None  # the process's start time in clock ticks (/proc/<pid>/stat)
    serving: dict[str, Any] | None = None  # the resolved ServingOptions it runs with

    def __post_init__(self) -> None:
        if not isinstance(self.pid, int) or isinstance(self.pid, bool) or not 0 < self.pid < 2**31:
            raise TypeError(f"pid must be a positive int, got {self.pid!r}")  # kill(0|-1) = many
        if not isinstance(self.port, int) or not 0 < self.port < 65536:
            raise TypeError(f"port must be an int in 1..65535, got {self.port!r}")

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"


def _state_dir(settings: Settings) -> Path:
    return Path(settings.cache_dir) / "llm_server"


def _state_path(settings: Settings, tier: str) -> Path:
    return _state_dir(settings) / f"{tier}.json"


def _healthy(port: int, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/health", timeout=timeout) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError, TimeoutError):
        return False


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return sock.connect_ex((HOST, port)) != 0


def _port_lock_path(port: int) -> str:
    """A lock file shared by every checkout on this machine, one per port."""
    return str(Path(tempfile.gettempdir()) / f"ace_lab-llm-port-{port}.lock")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _read_state(path: Path) -> ServerInfo | None:
    """The state file's server, or None (an unreadable or invalid file is removed)."""
    if not path.is_file():
        return None
    try:
        return ServerInfo(**json.loads(path.read_text()))
    except (ValueError, TypeError, OSError):
        path.unlink(missing_ok=True)
        return None


def status(settings: Settings, tier: str | None = None) -> ServerInfo | None:
    """The live server for ``tier`` (default: the configured one), or None; a state file
    whose process is gone or is not our server (its pid reused) is removed."""
    tier = tier or settings.llm.tier
    path = _state_path(settings, tier)
    info = _read_state(path)
    if info is None:
        return None
    if not (_pid_alive(info.pid) and is_our_server(info)):
        path.unlink(missing_ok=True)
        return None
    return info if _healthy(info.port) else None


# ------------------------------------------------------------------------ process identity
def proc_start_ticks(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks since boot (field 22 of ``/proc/<pid>/stat``)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rsplit(") ", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _cmdline(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    return [arg.decode("utf-8", "replace") for arg in raw.split(b"\0")[:-1]]


def _arg(cmd: list[str], flag: str) -> str | None:
    return cmd[cmd.index(flag) + 1] if flag in cmd[:-1] else None


def is_our_server(info: ServerInfo) -> bool:
    """Whether ``info.pid`` is the server process ``start`` launched for ``info``.

    All must hold: the process belongs to this user; it leads its own session (``start`` starts
    it with ``start_new_session``); its command line runs ``-m ace_lab.llm.server`` with the
    state's model, alias and port; and it started at the recorded clock tick (state files
    written before that was recorded: within 5 s of ``started_at``). Unknowable means no.
    """
    pid = info.pid
    try:
        owner = os.stat(f"/proc/{pid}").st_uid
        session = os.getsid(pid)
    except OSError:
        return False
    cmd = _cmdline(pid)
    if owner != os.getuid() or session != pid or not cmd:
        return False
    module = any(a == "-m" and b == SERVER_MODULE for a, b in itertools.pairwise(cmd))
    wanted = {"--model": info.model_path, "--alias": info.tier, "--port": str(info.port)}
    if not module or any(_arg(cmd, flag) != value for flag, value in wanted.items()):
        return False
    ticks = proc_start_ticks(pid)
    if info.proc_start is not None:
        return ticks == info.proc_start
    return ticks is not None and abs(_ticks_to_epoch(ticks) - info.started_at) <= 5.0


def _ticks_to_epoch(ticks: int) -> float:
    try:
        with open("/proc/stat") as fh:
            boot = next(int(line.split()[1]) for line in fh if line.startswith("btime "))
    except (OSError, StopIteration, ValueError):
        return float("nan")
    return boot + ticks / os.sysconf("SC_CLK_TCK")


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
        live = status(settings, tier) or _await_starting(settings, tier, wait_s)
        options = serving.resolve(settings.llm.serving, settings.model_dir)
        # what the cache identity keys, and the slot count (2 slots batch prompts together)
        want = (spec.sha256, options.as_dict(), settings.llm.threads, settings.llm.parallel)
        if live is not None and (live.sha256, live.serving, live.threads, live.parallel) == want:
            return live
        # not live, or other settings: also ends a server an interrupted start left starting
        stop(settings, tier)
        model_path = prepare_model(tier, settings.model_dir)
        return _launch(settings, tier, model_path, options, wait_s)


def _launch(
    settings: Settings, tier: str, model_path: Path, options: ServingOptions, wait_s: float
) -> ServerInfo:
    """Launch the server process for ``tier`` and wait until it answers (state file first)."""
    state_dir = _state_dir(settings)
    # Starts on one machine (two checkouts, two test suites) take the configured port one
    # at a time: a server still loading has not bound it yet, so a second start would pick
    # it too, fail to bind, and take the first server's /health answers for its own.
    with FileLock(_port_lock_path(settings.llm.port), timeout=wait_s + 60):
        port = settings.llm.port if _port_free(settings.llm.port) else _free_port()
        log_path = state_dir / f"{tier}.log"
        cmd = [
            sys.executable, "-m", SERVER_MODULE,
            "--model", str(model_path),
            "--alias", tier,
            "--port", str(port),
            "--threads", str(settings.llm.threads),
            "--ctx-size", str(settings.llm.ctx_size),
            "--parallel", str(settings.llm.parallel),
            "--model-dir", str(settings.model_dir),
            *serving.options_argv(options),
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
            sha256=get_tier(tier).sha256,
            threads=settings.llm.threads,
            ctx_size=settings.llm.ctx_size,
            parallel=settings.llm.parallel,
            log_path=str(log_path),
            started_at=time.time(),
            proc_start=proc_start_ticks(proc.pid),
            serving=options.as_dict(),
        )
        # The state file is written before waiting: a start killed from here on (SIGKILL,
        # SIGTERM) leaves a server that `llm stop` and the next `start` find and end.
        _write_state(_state_path(settings, tier), info)
        try:
            _wait_healthy(proc, port, tier, log_path, wait_s)
        except BaseException:  # a failed start or an interrupt (Ctrl-C): end what we started
            _terminate(proc.pid)
            proc.poll()  # reap it
            _state_path(settings, tier).unlink(missing_ok=True)
            raise
    _LAUNCHED.add(info.pid)
    return info


def _await_starting(settings: Settings, tier: str, wait_s: float) -> ServerInfo | None:
    """The server a state file names that is ours and alive but not answering yet (still
    loading, or busy), once it answers; None when there is none or it never does."""
    info = _read_state(_state_path(settings, tier))
    if info is None or not (_pid_alive(info.pid) and is_our_server(info)):
        return None
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and _pid_alive(info.pid):
        if _healthy(info.port):
            return info
        time.sleep(0.25)
    return None


def _wait_healthy(
    proc: subprocess.Popen, port: int, tier: str, log_path: Path, wait_s: float
) -> None:
    """Return once the server answers /health; ServerError if it exits or times out."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerError(
                f"local LLM server for tier {tier!r} exited with code {proc.returncode}; "
                f"log {log_path}:\n{_log_tail(log_path)}"
            )
        if _healthy(port):
            return
        time.sleep(0.25)
    raise ServerError(
        f"local LLM server for tier {tier!r} did not become healthy within {wait_s:.0f} s; "
        f"log {log_path}:\n{_log_tail(log_path)}"
    )


def _write_state(path: Path, info: ServerInfo) -> None:  # atomic: never read half-written
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(asdict(info), indent=2))
    os.replace(tmp, path)


def stop(settings: Settings, tier: str | None = None) -> bool:
    """Stop the server for ``tier`` by pid; True if one was running.

    A state file naming a process that is not our server (see :func:`is_our_server`) is
    removed without signalling anything.
    """
    tier = tier or settings.llm.tier
    path = _state_path(settings, tier)
    info = _read_state(path)
    if info is None:
        return False
    _LAUNCHED.discard(info.pid)
    try:
        return _pid_alive(info.pid) and _terminate(info.pid, verify=lambda: is_our_server(info))
    finally:
        path.unlink(missing_ok=True)


def stop_own(settings: Settings, tier: str | None = None) -> bool:
    """Stop the server for ``tier`` only if this process launched it; True if it did.

    A notebook asked to leave no server behind must not end one that was serving before it
    ran (a user's, or a queue's that a batch run of the notebooks shares).
    """
    info = _read_state(_state_path(settings, tier or settings.llm.tier))
    return info is not None and info.pid in _LAUNCHED and stop(settings, tier)


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - server process
    parser = argparse.ArgumentParser(description="Serve a GGUF model on 127.0.0.1.")
    parser.add_argument("--model", required=True)
    parser.add_argument("--alias", default="local")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx-size", type=int, default=8192)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--model-dir", type=Path, default=Settings().model_dir)
    serving.add_option_arguments(parser)
    a = parser.parse_args(argv)
    options = serving.options_from_args(a)
    serving.serve(a.model, a.port, a.threads, a.ctx_size, a.parallel, a.alias, options, a.model_dir)


if __name__ == "__main__":  # pragma: no cover
    main()
