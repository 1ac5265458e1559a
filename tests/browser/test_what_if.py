"""The what-if panel in a real JupyterLab, driven by a headless Chromium once.

JupyterLab runs on loopback with a notebook whose one cell builds the panel over the toy graph
with scripted models (``tests.browser_panel``); Chromium opens it, runs the cell, waits for the
answer panel, then moves the MOSAIC depth slider with the keyboard, as a person would, and waits
for the answer panel to show the answer under the new setting. Chromium is driven through the
DevTools protocol over ``websocket-client`` (in requirements.lock, used by jupyter_server), so the
test needs nothing beyond Chromium itself: ``.ci/run`` installs the Debian ``chromium`` package
(``apt-get install chromium``); without it the test skips and says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.support.devtools import chromium, free_port, stop, wait
from tests.support.paths import REPO

TOKEN = "ace-lab-browser-test"
#: Seconds to wait for JupyterLab, the kernel's first answer, and the answer after a change.
START_S, FIRST_ANSWER_S, CHANGED_S = 900, 900, 600

pytestmark = pytest.mark.browser
#: The notebook's kernel (JupyterLab asks which kernel to start when a notebook names none).
KERNEL = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[str]:
    """A JupyterLab on loopback serving a notebook that builds the panel; its URL."""
    cell = (
        f"import sys; sys.path.insert(0, {str(REPO)!r})\n"
        "from tests.support.browser_panel import panel\n"
        "panel()"
    )
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)], metadata=KERNEL),
        tmp_path / "panel.ipynb",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACE_LAB_LLM_")}
    env |= {
        "ACE_LAB_CACHE_DIR": str(tmp_path / "cache"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "jc"),
    }
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.root_dir={tmp_path}",
            "--LabApp.expose_app_in_browser=True",
            "--ServerApp.open_browser=False",
            "--ServerApp.allow_root=True",  # CI runs as root
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "lab.log").open("w"),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait(
            "JupyterLab",
            START_S,
            lambda: urllib.request.urlopen(f"{base}/api/status?token={TOKEN}").status == 200,
        )
        yield f"{base}/lab/tree/panel.ipynb?token={TOKEN}"
    finally:
        stop(server)


class Page:
    """One Chromium tab over the DevTools protocol: evaluate JavaScript, press keys."""

    def __init__(self, ws_url: str) -> None:
        import websocket

        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
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


@pytest.fixture
def page(lab: str, tmp_path: Path) -> Iterator[Page]:
    """Headless Chromium showing the lab's notebook."""
    profile = tmp_path / "profile"
    browser = subprocess.Popen(
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
            "--window-size=1400,1800",
            lab,
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
        stop(browser)


ANSWER = "document.querySelector('.ace-what-if-answer')?.innerText || ''"
#: The depth slider's handle: the slider row whose label reads "depth".
DEPTH_HANDLE = """(() => {
  const rows = [...document.querySelectorAll('.widget-slider')];
  const row = rows.find(r => r.querySelector('.widget-label')?.innerText.trim() === 'depth');
  const handle = row?.querySelector('.noUi-handle');
  if (!handle) return false;
  handle.focus();
  return document.activeElement === handle;
})()"""


def test_moving_a_slider_reanswers_in_jupyterlab(page: Page):
    wait(
        "JupyterLab's notebook",
        START_S,
        lambda: page.eval("!!(window.jupyterapp && document.querySelector('.jp-Notebook'))"),
    )
    wait(
        "the kernel",
        START_S,
        lambda: page.eval(
            "(() => { const w = window.jupyterapp.shell.currentWidget;"
            " return !!(w && w.sessionContext && w.sessionContext.session"
            " && w.sessionContext.session.kernel); })()"
        ),
    )
    # not awaited: the command's promise settles only when the cell has run
    page.eval("void window.jupyterapp.commands.execute('notebook:run-all-cells')")
    first = wait(
        "the first answer",
        FIRST_ANSWER_S,
        lambda: "12x3" in page.eval(ANSWER) and page.eval(ANSWER),
    )
    assert "mosaic-budget-matched:12x3" in first and "F1" in first
    wait("the depth slider", CHANGED_S, lambda: page.eval(DEPTH_HANDLE))
    page.key("ArrowLeft", 37)  # depth 3 → 2, as a person would move it
    changed = wait(
        "the answer under the new depth",
        CHANGED_S,
        lambda: "12x2" in page.eval(ANSWER) and page.eval(ANSWER),
    )
    assert "mosaic-budget-matched:12x2" in changed and changed != first
