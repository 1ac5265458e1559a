"""Server processes: a stale state file never gets a foreign process signalled, and the LLM
server and FalkorDB listen on loopback or a private unix socket only.

*Stale state files.* ``ace-lab llm stop`` and ``status`` read a pid from the server's state file.
Every kind of stale or forged state is written in turn: the pid of a ``sleep`` this module
spawns (plain, and as a session leader), decoys whose command line imitates the server's but
whose start time (or port) differs from the state's, a legacy state (no start tick) naming an
old decoy, an exited pid, a zombie, a pid beyond ``pid_max``, pid 0 / -1 / 1 / this process,
mistyped and corrupt JSON. An attempt holds when ``status`` returns None, ``stop`` returns
False, the state file is gone after each, no signal other than the probe 0 was sent to any of
these pids, and every foreign process still runs. While this runs ``os.kill`` and
``signal.pidfd_send_signal`` go through :class:`SignalGuard`, which records every signal and
forwards only those to the positive control: a decoy identical to the server in every checked
respect, which ``stop`` must end (so the check cannot pass by never signalling anything).

*Listening addresses.* With the smoke-tier LLM server and an embedded FalkorDB running, every
listening socket of each process (``/proc/<pid>/fd`` matched against ``/proc/net/tcp``,
``tcp6`` and ``unix``) must be on a loopback address, or a unix socket whose folder is mode
0700; each process must listen somewhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from ace_lab.config import Settings, load_settings
from ace_lab.llm import server

SMOKE_TIER = "smollm135m"
ROUNDS_FULL, ROUNDS_FAST = 5, 1
_SLEEP = 120  # seconds every spawned process lives at most, should cleanup ever be skipped


# ------------------------------------------------------------------------------ signal guard
def _pidfd_pid(fd: int) -> int | None:
    try:
        for line in Path(f"/proc/self/fdinfo/{fd}").read_text().splitlines():
            if line.startswith("Pid:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


class SignalGuard:
    """Records every signal sent through ``os.kill`` / ``signal.pidfd_send_signal`` and
    forwards only the probe 0 and signals to ``allowed`` pids (the rest are swallowed)."""

    def __init__(self, allowed: set[int]) -> None:
        self.allowed = allowed
        self.sent: list[tuple[int, int]] = []

    @contextlib.contextmanager
    def active(self) -> Iterator[SignalGuard]:
        real_kill, real_pidfd = os.kill, getattr(signal, "pidfd_send_signal", None)

        def kill(pid: int, sig: int) -> None:
            self.sent.append((pid, sig))
            if sig == 0 or pid in self.allowed:
                real_kill(pid, sig)

        def pidfd_send(fd: int, sig: int, *args: Any) -> None:
            pid = _pidfd_pid(fd)
            self.sent.append((pid if pid is not None else -(10**9), sig))
            if real_pidfd is not None and (sig == 0 or pid in self.allowed):
                real_pidfd(fd, sig, *args)

        os.kill, signal.pidfd_send_signal = kill, pidfd_send  # type: ignore[assignment]
        try:
            yield self
        finally:
            os.kill = real_kill
            if real_pidfd is not None:
                signal.pidfd_send_signal = real_pidfd

    def signalled(self, pid: int) -> list[int]:
        return [sig for p, sig in self.sent if p == pid and sig != 0]


# ------------------------------------------------------------------------------ stale states
def _settings(cache_dir: Path, tier: str = SMOKE_TIER) -> Settings:
    base = load_settings()
    llm = replace(base.llm, base_url=None, model=None, tier=tier, threads=1, parallel=1)
    return replace(base, cache_dir=cache_dir, llm=replace(llm, ctx_size=2048))


def _state(pid: Any, port: int = 38765, **changes: Any) -> dict[str, Any]:
    state = {
        "pid": pid, "port": port, "tier": SMOKE_TIER, "model_path": "/nonexistent/model.gguf",
        "sha256": "0" * 64, "threads": 1, "ctx_size": 2048, "parallel": 1,
        "log_path": "/nonexistent/log", "started_at": time.time(), "proc_start": None,
    }  # fmt: skip
    return state | changes


class _Spawner:
    """Starts the foreign processes of one round and ends them all afterwards."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []

    def __call__(self, cmd: list[str], session: bool = False) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(cmd, start_new_session=session, stdin=subprocess.DEVNULL)
        self.procs.append(proc)
        return proc

    def sleep(self, session: bool = False) -> subprocess.Popen[bytes]:
        return self(["sleep", str(_SLEEP)], session)

    def decoy(self, port: int = 38765) -> subprocess.Popen[bytes]:
        """A session leader whose command line reads like the server's for :func:`_state`."""
        cmd = [
            sys.executable, "-c", f"import time; time.sleep({_SLEEP})",
            "-m", server.SERVER_MODULE, "--model", "/nonexistent/model.gguf",
            "--alias", SMOKE_TIER, "--port", str(port),
        ]  # fmt: skip
        proc = self(cmd, session=True)
        for _ in range(100):  # the exec has happened once the command line is python's
            if server._cmdline(proc.pid) == cmd or proc.poll() is not None:
                break
            time.sleep(0.01)
        return proc

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)


def _stale_states(spawn: _Spawner) -> list[tuple[str, Any, int | None]]:
    """``(name, state file content, foreign pid that must survive or None)`` of one round."""
    plain, leader = spawn.sleep(), spawn.sleep(session=True)
    decoy = spawn.decoy()
    ticks = server.proc_start_ticks(decoy.pid)
    old_decoy, other_port = spawn.decoy(), spawn.decoy(port=38766)
    gone = spawn.sleep()
    gone.kill()
    gone.wait()
    zombie = spawn(["true"])
    while server._cmdline(zombie.pid):  # exited but not reaped (a zombie has no command line)
        time.sleep(0.01)
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    reused = _state(decoy.pid, proc_start=(ticks or 0) + 7)
    legacy = _state(old_decoy.pid, started_at=time.time() - 3600)
    elsewhere = _state(other_port.pid, proc_start=server.proc_start_ticks(other_port.pid))
    return [
        ("a sleep this module spawned", _state(plain.pid), plain.pid),
        ("a sleep leading its own session", _state(leader.pid), leader.pid),
        ("a decoy started at another tick (pid reused)", reused, decoy.pid),
        ("a legacy state naming an hour-old decoy", legacy, old_decoy.pid),
        ("a decoy whose port is not the state's", elsewhere, other_port.pid),
        ("an exited pid", _state(gone.pid), None),
        ("a zombie", _state(zombie.pid), None),
        ("a pid beyond pid_max", _state(pid_max + 1), None),
        ("a pid beyond what the kernel takes", _state(2**40), None),
        ("pid 0 (the process group)", _state(0), None),
        ("pid -1 (every process)", _state(-1), None),
        ("pid 1 (init)", _state(1), 1),
        ("this process", _state(os.getpid()), os.getpid()),
        ("a pid that is a string", _state(str(plain.pid)), plain.pid),
        ("a pid that is a boolean", _state(True), None),
        ("corrupt JSON", '{"pid": ' + str(plain.pid), plain.pid),
        ("a port out of range", _state(leader.pid, port=0), leader.pid),
    ]


def _attempt(settings: Settings, content: Any, foreign: int | None, guard: SignalGuard) -> str:
    """'' when the stale state was cleaned without signalling ``foreign``, else why not."""
    path = server._state_path(settings, SMOKE_TIER)
    text = content if isinstance(content, str) else json.dumps(content)
    problems = []
    for name, call in (("status", server.status), ("stop", server.stop)):
        path.write_text(text)
        before = len(guard.sent)
        result = call(settings, SMOKE_TIER)
        if result not in (None, False):
            problems.append(f"{name} returned {result!r}")
        if path.exists():
            problems.append(f"{name} left the state file")
        bad = [(p, s) for p, s in guard.sent[before:] if s != 0]
        if bad:
            problems.append(f"{name} sent {bad}")
    if foreign is not None and not server._pid_alive(foreign):
        problems.append(f"foreign pid {foreign} is gone")
    return "; ".join(problems)


def _control(settings: Settings, spawn: _Spawner, guard: SignalGuard) -> str:
    """The positive control: a decoy identical to our server in every respect is stopped."""
    decoy = spawn.decoy()
    guard.allowed.add(decoy.pid)
    content = _state(decoy.pid, proc_start=server.proc_start_ticks(decoy.pid))
    path = server._state_path(settings, SMOKE_TIER)
    path.write_text(json.dumps(content))
    stopped = server.stop(settings, SMOKE_TIER)
    decoy.wait(timeout=15)
    if not stopped or path.exists() or not guard.signalled(decoy.pid):
        return f"control not stopped (stop={stopped}, state left={path.exists()})"
    return ""


def stale_state_files(rounds: int) -> dict[str, Any]:
    """The "stale state files" row."""
    attempts, failures = 0, []
    with tempfile.TemporaryDirectory(prefix="stale-state-") as tmp:
        settings = _settings(Path(tmp))
        server._state_dir(settings).mkdir(parents=True)
        guard = SignalGuard(set())
        for _ in range(rounds):
            spawn = _Spawner()
            try:
                states = _stale_states(spawn)  # unguarded: the spawner kills and reaps its own
                with guard.active():
                    for name, content, foreign in states:
                        attempts += 1
                        if why := _attempt(settings, content, foreign, guard):
                            failures.append(f"{name}: {why}")
                    attempts += 1
                    if why := _control(settings, spawn, guard):
                        failures.append(why)
            finally:
                spawn.close()
    foreign_signalled = sum(1 for pid, sig in guard.sent if sig and pid not in guard.allowed)
    note = (
        f"{foreign_signalled} signals to foreign processes; {rounds} round(s) of "
        f"{attempts // rounds - 1} stale states + a positive control that must be stopped"
    )
    return _row("stale state files", attempts, failures, note)


# ------------------------------------------------------------------------------ listening
def _socket_inodes(pid: int) -> set[int]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(int(target[8:-1]))
    return inodes


def _tcp_address(hex_addr: str) -> str:
    ip, port = hex_addr.split(":")
    raw = bytes.fromhex(ip)
    if len(raw) == 4:
        return f"{socket.inet_ntop(socket.AF_INET, raw[::-1])}:{int(port, 16)}"
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
    return f"[{socket.inet_ntop(socket.AF_INET6, words)}]:{int(port, 16)}"


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the native LLM backend serves from a child process)."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        for children in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                todo += [int(c) for c in children.read_text().split()]
            except OSError:
                continue
    return tree


def listening_sockets(pid: int) -> list[tuple[str, str]]:
    """``(kind, address)`` of every listening socket ``pid`` or a descendant holds: ``tcp``
    with ``ip:port``, ``unix`` with its path (``@name`` for an abstract one)."""
    inodes, found = {i for p in process_tree(pid) for i in _socket_inodes(p)}, []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] == "0A" and int(cols[9]) in inodes:  # 0A: LISTEN
                found.append(("tcp", _tcp_address(cols[1])))
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        cols = line.split()
        if int(cols[6]) in inodes and int(cols[3], 16) & 0x10000:  # __SO_ACCEPTCON: listening
            found.append(("unix", cols[7] if len(cols) > 7 else "(unnamed)"))
    return found


def private(kind: str, address: str) -> bool:
    """Loopback TCP, or a unix socket file in a folder only its owner can enter."""
    if kind == "tcp":
        host = address.rsplit(":", 1)[0].strip("[]")
        return host.startswith("127.") or host == "::1"
    if address.startswith("@") or not address.startswith("/"):
        return False  # abstract and unnamed sockets have no file permissions
    return (Path(address).parent.stat().st_mode & 0o777) == 0o700


def _check_process(label: str, pid: int) -> tuple[int, list[str]]:
    sockets = listening_sockets(pid)
    failures = [f"{label} listens on {k} {addr}" for k, addr in sockets if not private(k, addr)]
    if not sockets:
        failures.append(f"{label} (pid {pid}) has no listening socket")
    return max(len(sockets), 1), failures


def listening_addresses() -> dict[str, Any]:
    """The "listening addresses" row: the smoke-tier LLM server and an embedded FalkorDB."""
    from ace_lab.graph.store import EmbeddedFalkorDB

    attempts, failures, seen = 0, [], []
    with tempfile.TemporaryDirectory(prefix="listening-") as tmp:
        settings, store = _settings(Path(tmp) / "cache"), None
        try:
            info = server.start(settings, SMOKE_TIER)
            store = EmbeddedFalkorDB(Path(tmp) / "falkordb")
            for label, pid in (("LLM server", info.pid), ("FalkorDB", store.server.pid)):
                n, bad = _check_process(label, pid)
                attempts, failures = attempts + n, failures + bad
                seen += [f"{label} {kind} {addr}" for kind, addr in listening_sockets(pid)]
        finally:
            server.stop(settings, SMOKE_TIER)
            if store is not None:
                store.close()
    return _row("listening addresses", attempts, failures, "; ".join(seen))


# ------------------------------------------------------------------------------ the rows
def _row(prop: str, attempts: int, failures: list[str], note: str) -> dict[str, Any]:
    if failures:
        note = "; ".join(failures[:3]) + " | " + note
    return {
        "property": prop,
        "attempts": attempts,
        "held": attempts - len(failures),
        "failed": len(failures),
        "note": note,
    }


def measure(full: bool) -> list[dict[str, Any]]:
    """Both rows (the listening one starts the smoke-tier server and a FalkorDB)."""
    return [stale_state_files(ROUNDS_FULL if full else ROUNDS_FAST), listening_addresses()]
