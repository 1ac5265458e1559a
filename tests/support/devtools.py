"""Headless Chromium over the DevTools protocol, and a JupyterLab to point it at (browser tests).

Chromium is driven through ``websocket-client`` (in requirements.lock, used by jupyter_server),
so the browser tests need nothing beyond Chromium itself: ``.ci/run`` installs the Debian
``chromium`` package (``apt-get install chromium``); without it they skip and say so.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

TOKEN = "ace-lab-browser-test"
#: Seconds to wait for JupyterLab or Chromium to come up.
START_S = 900


def chromium() -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (.ci/run installs it: apt-get install chromium)")
    return browser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait(what: str, timeout_s: float, probe: Callable[[], Any]) -> Any:
    """``probe()``'s first truthy value within ``timeout_s``; a clear failure otherwise."""
    deadline, last = time.monotonic() + timeout_s, None
    while time.monotonic() < deadline:
        try:
            last = probe()
        except (OSError, ValueError) as exc:  # not up yet
            last = exc
        if last and not isinstance(last, Exception):
            return last
        time.sleep(0.5)
    pytest.fail(f"timed out after {timeout_s:.0f} s waiting for {what} (last: {last!r})")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def jupyter_lab(command: Sequence[str], env: dict[str, str], log: Path) -> Iterator[str]:
    """A JupyterLab started by ``command`` (``--port``/``--ServerApp.port`` and the token
    :data:`TOKEN` among its options are the caller's) until the block ends; its base URL."""
    port = next(
        a.split("=", 1)[1] for a in command if a.startswith(("--port=", "--ServerApp.port="))
    )
    env = dict(env)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    server = subprocess.Popen(
        list(command), env=env, stdout=subprocess.DEVNULL, stderr=log.open("w")
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait(
            "JupyterLab",
            START_S,
            lambda: urllib.request.urlopen(f"{base}/api/status?token={TOKEN}").status == 200,
        )
        yield base
    finally:
        stop(server)


class Page:
    """One Chromium tab over the DevTools protocol: evaluate JavaScript, press keys."""

    def __init__(self, ws_url: str) -> None:
        import websocket

        self.ws = websocket.create_connection(ws_url, timeout=600, suppress_origin=True)
        self.next_id = 0

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def eval(self, expression: str) -> Any:
        result = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        return result.get("result", {}).get("value")

    def key(self, key: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code
            )

    def screenshot(self, path: Path) -> None:
        """The visible viewport as a PNG at ``path``."""
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))


@contextmanager
def browser(url: str, profile: Path, size: str = "1400,1800") -> Iterator[Page]:
    """Headless Chromium showing ``url`` until the block ends; its page."""
    process = subprocess.Popen(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            f"--window-size={size}",
            url,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port = wait(
            "Chromium's DevTools port",
            START_S,
            lambda: (profile / "DevToolsActivePort").read_text().split()[0],
        )

        def target() -> str | None:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as reply:
                pages = [t for t in json.load(reply) if t.get("type") == "page"]
            return pages[0]["webSocketDebuggerUrl"] if pages else None

        tab = Page(wait("a page target", START_S, target))
        yield tab
        tab.ws.close()
    finally:
        stop(process)
