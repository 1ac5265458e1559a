"""The what-if panel in a real JupyterLab, driven by a headless Chromium once.

JupyterLab runs on loopback with a notebook whose one cell builds the panel over the toy
graph with scripted models (``tests.support.browser_panel``); Chromium opens it, runs the cell,
waits for the answer panel, then moves the MOSAIC depth slider with the keyboard, as a person
would, and waits for the answer panel to show the answer under the new setting. Chromium is
driven through the DevTools protocol over ``websocket-client`` (in requirements.lock, used by
jupyter_server), so the test needs nothing beyond Chromium itself: ``.ci/run`` installs the
Debian ``chromium`` package (``apt-get install chromium``); without it the test skips and says
so.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from tests.support.devtools import (
    START_S,
    TOKEN,
    Page,
    browser,
    free_port,
    jupyter_lab,
    wait,
)
from tests.support.paths import REPO

#: Seconds to wait for the kernel's first answer, and for the answer after a change.
FIRST_ANSWER_S, CHANGED_S = 900, 600

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
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={free_port()}",
        f"--IdentityProvider.token={TOKEN}",
        f"--ServerApp.root_dir={tmp_path}",
        "--LabApp.expose_app_in_browser=True",
        "--ServerApp.open_browser=False",
        "--ServerApp.allow_root=True",  # CI runs as root
    ]
    with jupyter_lab(command, env, tmp_path / "lab.log") as base:
        yield f"{base}/lab/tree/panel.ipynb?token={TOKEN}"


@pytest.fixture
def page(lab: str, tmp_path: Path) -> Iterator[Page]:
    """Headless Chromium showing the lab's notebook."""
    with browser(lab, tmp_path / "profile") as tab:
        yield tab


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
