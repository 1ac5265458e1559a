"""ace_lab.llm.server: the embedded local server answers, is reused and stops (integration);
a stale state file never gets another process signalled; the server binds loopback only."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ace_lab.config import ServingOptions
from ace_lab.llm import LLM, server, serving
from tests.support.scripted import CHAT_MESSAGES as MESSAGES


@pytest.mark.integration
def test_local_server_real_call_then_cache_hit(settings):
    llm = LLM(settings)
    try:
        first = llm.ping()
        assert not first.cache_hit and first.text.strip()
        assert first.prompt_tokens > 0 and first.completion_tokens > 0
        info = server.status(settings)
        assert info is not None and info.tier == "smollm135m"
        assert info.proc_start is not None and server.is_our_server(info)
        second = llm.ping()
        assert second.cache_hit and (second.prompt_tokens, second.completion_tokens) == (0, 0)
        hotter = llm.chat(llm.request(MESSAGES)["messages"], tag="t", temperature=0.9, seed=3)
        assert not hotter.cache_hit
        # a second client reuses the running server instead of starting another
        assert server.start(settings).pid == info.pid
    finally:
        assert server.stop(settings)
    assert server.status(settings) is None


# --- process safety (issue 13): never signal a process that is not our server ---------------


@pytest.fixture
def signals(monkeypatch):
    """Every signal server.py sends, recorded and swallowed (nothing real is killed)."""
    sent: list[tuple[str, int, int]] = []
    monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append(("kill", pid, sig)))
    monkeypatch.setattr(
        signal, "pidfd_send_signal", lambda fd, sig, *a: sent.append(("pidfd", fd, sig))
    )
    return sent


def _decoy(port: int = 38765, alias: str = "smollm135m") -> subprocess.Popen:
    """A session leader whose command line reads exactly like the server's."""
    cmd = [sys.executable, "-c", "import time; time.sleep(60)", "-m", server.SERVER_MODULE,
           "--model", "/m.gguf", "--alias", alias, "--port", str(port)]  # fmt: skip
    proc = subprocess.Popen(cmd, start_new_session=True)
    while server._cmdline(proc.pid) != cmd:
        time.sleep(0.01)
    return proc


def _write_state(settings, pid, **changes) -> Path:
    path = server._state_path(settings, settings.llm.tier)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {"pid": pid, "port": 38765, "tier": "smollm135m", "model_path": "/m.gguf",
             "sha256": "0" * 64, "threads": 1, "ctx_size": 512, "parallel": 1, "log_path": "x",
             "started_at": time.time()}  # fmt: skip
    path.write_text(json.dumps(state | changes))
    return path


@pytest.fixture
def sleeper():
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    yield proc
    proc.kill()
    proc.wait()


def test_stop_never_signals_a_foreign_pid_from_a_stale_state_file(settings, sleeper) -> None:
    """Regression: ``ace-lab llm stop`` sent SIGTERM/SIGKILL to whatever pid the file named."""
    path = _write_state(settings, sleeper.pid)
    assert server.stop(settings) is False
    assert not path.exists() and sleeper.poll() is None
    path = _write_state(settings, sleeper.pid)
    assert server.status(settings) is None and not path.exists()  # status cleans it too


@pytest.mark.parametrize("pid", [0, -1, True, "123", 2**40])
def test_invalid_pids_are_removed_without_a_signal(settings, signals, pid) -> None:
    path = _write_state(settings, pid)
    assert server.stop(settings) is False and not path.exists()
    assert [s for s in signals if s[2] != 0] == []


def test_a_decoy_is_ours_only_with_the_recorded_start_tick(settings) -> None:
    decoy = _decoy()
    try:
        ticks = server.proc_start_ticks(decoy.pid)
        info = server.ServerInfo(**json.loads(_write_state(settings, decoy.pid).read_text()))
        assert not server.is_our_server(replace(info, started_at=time.time() - 3600))
        assert server.is_our_server(replace(info, proc_start=ticks))
        assert not server.is_our_server(replace(info, proc_start=ticks + 1))  # pid reused
        assert not server.is_our_server(replace(info, proc_start=ticks, port=38766))
        assert not server.is_our_server(replace(info, proc_start=ticks, tier="qwen1.5b"))
        _write_state(settings, decoy.pid, proc_start=ticks + 1)
        assert server.stop(settings) is False and decoy.poll() is None
        _write_state(settings, decoy.pid, proc_start=ticks)
        assert server.stop(settings) is True  # the same process in every respect: stopped
        assert decoy.wait(timeout=15) == -signal.SIGTERM
    finally:
        decoy.kill()
        decoy.wait()


def test_a_plain_child_is_not_our_server(sleeper) -> None:
    child = subprocess.Popen(["sleep", "60"])  # not a session leader
    try:
        for pid in (sleeper.pid, child.pid, os.getpid(), 1):
            info = server.ServerInfo(pid, 38765, "t", "/m", "", 1, 1, 1, "", time.time(), 0)
            assert not server.is_our_server(info)
    finally:
        child.kill()
        child.wait()


def test_terminate_checks_identity_after_opening_the_pidfd(signals) -> None:
    assert server._terminate(os.getpid(), verify=lambda: False) is False
    assert server._terminate(0) is False and server._terminate(-1) is False
    assert signals == []


def test_the_server_binds_loopback_only() -> None:
    options = ServingOptions(prompt_cache=server.PROMPT_CACHE)
    params = serving.xllamacpp_params("/m.gguf", 38765, 1, 512, 2, "smollm135m", options)
    assert list(params.hostnames) == ["127.0.0.1"] == [server.HOST]
    assert params.port == 38765 and params.n_ctx == 1024
    info = server.ServerInfo(1, 38765, "t", "/m", "", 1, 1, 1, "", 0.0)
    assert info.base_url == "http://127.0.0.1:38765/v1"


def test_prompt_prefix_reuse_is_off_by_default() -> None:
    """Issue 14: reusing a cached prefix changed temperature-0 answers to identical prompts
    (tests/llm/test_server_determinism.py checks one answer comes back; the bench measures the
    cost)."""
    assert server.PROMPT_CACHE is False
    off = serving.xllamacpp_params("/m.gguf", 38765, 1, 512, 2, "t", ServingOptions())
    on = serving.xllamacpp_params(
        "/m.gguf", 38765, 1, 512, 2, "t", ServingOptions(prompt_cache=True)
    )
    assert off.cache_prompt is False and on.cache_prompt is True
    assert off.cpuparams.n_threads == off.cpuparams_batch.n_threads == 1


class _Restarted(Exception):
    """Raised by the patched ``stop``: ``start`` decided not to reuse the live server."""


@pytest.mark.parametrize(
    ("change", "reused"),
    [({}, True), ({"threads": 2}, False), ({"parallel": 2}, False), ({"sha256": "1" * 64}, False)],
)
def test_a_live_server_is_reused_only_with_the_same_weights_arithmetic_and_slots(
    settings, monkeypatch, change, reused
) -> None:
    from ace_lab.llm import serving
    from ace_lab.llm.models import get_tier

    settings = replace(settings, llm=replace(settings.llm, threads=1, parallel=1))
    options = serving.resolve(settings.llm.serving, settings.model_dir)
    live = server.ServerInfo(
        os.getpid(),
        38765,
        settings.llm.tier,
        "/m.gguf",
        get_tier(settings.llm.tier).sha256,
        1,
        512,
        1,
        "x",
        time.time(),
        serving=options.as_dict(),
    )
    monkeypatch.setattr(server, "status", lambda *a, **k: replace(live, **change))

    def stop(*args, **kwargs):
        raise _Restarted

    monkeypatch.setattr(server, "stop", stop)
    if reused:
        assert server.start(settings) == replace(live, **change)
    else:
        with pytest.raises(_Restarted):
            server.start(settings)


_START_IN_CHILD = """
import pickle, sys
from ace_lab.llm import server
server.start(pickle.load(open(sys.argv[1], "rb")))
"""


@pytest.mark.integration
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_an_interrupted_start_leaves_no_orphan(settings, tmp_path, sig) -> None:
    """Regression: a start interrupted while the server loaded left it running with no state
    file, so `llm status` said "not running" and `llm stop` found nothing."""
    import pickle

    pickled = tmp_path / "settings.pkl"
    pickled.write_bytes(pickle.dumps(settings))
    parent = subprocess.Popen([sys.executable, "-c", _START_IN_CHILD, str(pickled)])
    state = server._state_path(settings, settings.llm.tier)
    deadline = time.monotonic() + 120
    while not state.is_file() and parent.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert state.is_file(), "the start wrote no state file"
    written = json.loads(state.read_text())
    child = written["pid"]
    starting = parent.poll() is None and not server._healthy(written["port"])
    assert starting, "the state file was written only once the server answered"
    parent.send_signal(sig)
    parent.wait(timeout=60)
    server.stop(settings)  # what `ace-lab llm stop` does: finds the server if one is left
    deadline = time.monotonic() + 30
    while server._pid_alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not server._pid_alive(child), f"server {child} outlived its start ({sig.name})"
    assert not state.exists()


def test_a_start_holds_the_port_lock_from_choosing_the_port_until_healthy(
    settings, monkeypatch
) -> None:
    """Regression: two test suites on one machine (two checkouts) started servers at once; both
    saw the configured port free, the second failed to bind and took the first's /health for
    its own, then lost its server when the first suite stopped it."""
    held: list[str] = []
    seen: dict[str, list[str]] = {}

    class RecordingLock:
        def __init__(self, path: str, timeout: float) -> None:
            self.path = path

        def __enter__(self) -> None:
            held.append(self.path)

        def __exit__(self, *exc: object) -> None:
            held.remove(self.path)

    class Launched:
        pid, returncode = os.getpid(), None

    def port_free(port: int) -> bool:
        seen["port chosen"] = list(held)
        return True

    monkeypatch.setattr(server, "FileLock", RecordingLock)
    monkeypatch.setattr(server, "status", lambda *a, **k: None)
    monkeypatch.setattr(server, "_await_starting", lambda *a, **k: None)
    monkeypatch.setattr(server, "stop", lambda *a, **k: False)
    monkeypatch.setattr(server, "prepare_model", lambda tier, model_dir: Path("/m.gguf"))
    monkeypatch.setattr(server, "_port_free", port_free)
    monkeypatch.setattr(server.subprocess, "Popen", lambda *a, **k: Launched())
    monkeypatch.setattr(server, "_wait_healthy", lambda *a, **k: seen.update(healthy=list(held)))
    info = server.start(settings)
    port_lock = server._port_lock_path(settings.llm.port)
    assert port_lock in seen["port chosen"] and port_lock in seen["healthy"]
    assert not Path(port_lock).is_relative_to(settings.cache_dir)  # shared by every checkout
    assert info.port == settings.llm.port and held == []


def test_stop_own_ends_only_a_server_this_process_launched(settings, monkeypatch) -> None:
    """Regression: a batch run of the notebooks (`stop_server=True`) stopped the server a user
    or a queue was already using; it may end only the one it started."""
    port = settings.llm.port
    serving_before, launched = _decoy(port), _decoy(port)
    try:
        ticks = server.proc_start_ticks(serving_before.pid)
        state = _write_state(settings, serving_before.pid, port=port, proc_start=ticks)
        assert server.stop_own(settings) is False
        assert serving_before.poll() is None and state.exists()  # kept serving, still found
        state.unlink()
        monkeypatch.setattr(server, "status", lambda *a, **k: None)
        monkeypatch.setattr(server, "_await_starting", lambda *a, **k: None)
        monkeypatch.setattr(server, "prepare_model", lambda tier, model_dir: Path("/m.gguf"))
        monkeypatch.setattr(server, "_port_free", lambda port: True)
        monkeypatch.setattr(server.subprocess, "Popen", lambda *a, **k: launched)
        monkeypatch.setattr(server, "_wait_healthy", lambda *a, **k: None)
        assert server.start(settings).pid == launched.pid
        assert server.stop_own(settings) is True
        assert launched.wait(timeout=15) == -signal.SIGTERM and not state.exists()
        assert serving_before.poll() is None
    finally:
        for proc in (serving_before, launched):
            proc.kill()
            proc.wait()
