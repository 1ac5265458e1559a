"""``make lab``'s JupyterLab in headless Chromium: every pyvis view of notebooks 01–05 loads, and
running and saving a tracked notebook leaves ``git status`` clean.

One lab (``python -m ace_lab.lab``, what ``make lab`` runs) serves a throwaway git checkout
holding copies of the notebooks with their smoke parameters in a cell after the parameters
cell (where papermill puts them), committed: the tracked files are those copies. Each notebook
is opened in one Chromium tab, run top to bottom, then every ``<iframe>`` in its outputs is
checked: the page it points at answers 200 and is the view (vis-network's canvas), not
"404 : Not Found". The views are written where a default run writes them, ``../figures/`` next
to ``notebooks/``, the case a lab rooted at ``notebooks/`` answered with 404. Then the
notebook is saved and git must see no change: the lab's save hook
(:func:`ace_lab.lab.clean_tracked_notebook`) strips outputs.

The smoke runs replay archived responses as the notebook tests do
(``tests/notebooks/test_smoke_runs.py``): 02 builds the typed and OpenIE toy graphs that 04
reads, so it runs too. Set ``BROWSER_TEST_SHOTS`` to a folder to keep a screenshot of each
notebook's first view.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from ace_lab.lab import strip_outputs
from ace_lab.llm.replay import REPLAY_ONLY_ENV
from ace_lab.notebooks import NOTEBOOK_DIR, smoke_parameters
from tests.support.devtools import TOKEN, browser, free_port, jupyter_lab, wait

pytestmark = [pytest.mark.browser, pytest.mark.integration]

#: In run order: 01 builds the hierarchical toy graph 04 and 05 read, 02 the typed and OpenIE.
NOTEBOOKS = (
    "01_hierarchical_graph",
    "02_openie_and_typed_graphs",
    "03_ace_policy_stepper",
    "04_arcrag_interface_and_witness",
    "05_mosaic_policies",
)
#: Seconds for one notebook to run in the lab (smoke parameters, replayed responses).
RUN_S = 900
#: The open notebook at ``path`` (JavaScript, formatted with the path), or undefined.
NOTEBOOK = (
    "[...window.jupyterapp.shell.widgets('main')]"
    ".find(w => w.context && w.context.path === '{path}' && w.content && w.content.model)"
)
#: Every frame in a notebook's outputs: its URL and what the URL answers (status, start, whether
#: it is a view page), read with fetch: JupyterLab sandboxes output frames, their document is
#: not the page's to read.
FRAMES = """(async () => {
  const frames = [...NOTEBOOK.content.node.querySelectorAll('.jp-OutputArea iframe')];
  const seen = [];
  for (const frame of frames) {
    frame.scrollIntoView();
    const url = frame.src;
    const reply = await fetch(url);
    const page = await reply.text();
    const view = page.includes('id="network"') && page.includes('vis.Network');
    seen.push({url, status: reply.status, text: page.slice(0, 200), view});
  }
  return seen;
})()"""


def _parameters(name: str) -> dict[str, Any]:
    """The smoke parameters, with paths into the checkout made absolute and the views written
    where a default run writes them (``../figures``, ``export`` forcing it)."""
    params = smoke_parameters(name)
    for key, value in params.items():
        if isinstance(value, str) and value.startswith("../"):
            params[key] = str((NOTEBOOK_DIR / value).resolve())
    return params | {"figures_dir": "../figures", "export": True}


def _checkout(root: Path) -> None:
    """A git repository at ``root`` whose committed notebooks are the parameterised copies."""
    (root / "notebooks").mkdir(parents=True)
    (root / "figures").mkdir()
    for name in NOTEBOOKS:
        nb = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
        # after the parameters cell, as papermill injects them
        tagged = next(
            i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])
        )
        injected = "\n".join(f"{key} = {value!r}" for key, value in _parameters(name).items())
        cell = nbformat.v4.new_code_cell(injected, metadata={"tags": ["injected-parameters"]})
        nb.cells.insert(tagged + 1, cell)
        nbformat.write(strip_outputs(nb), root / "notebooks" / f"{name}.ipynb")
    (root / ".gitignore").write_text(".ipynb_checkpoints/\nnotebooks/executed/\nfigures/\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "notebooks"], check=True)


def _status(root: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True
    )
    return done.stdout.strip()


def _run_and_check(page: Any, name: str, root: Path, shots: Path | None) -> list[dict]:
    """Open, run and save notebook ``name``; the frames its outputs show."""
    path = f"notebooks/{name}.ipynb"
    notebook = NOTEBOOK.format(path=path)
    opened = f"window.jupyterapp.commands.execute('docmanager:open', {{path: '{path}'}})"
    page.eval(f"void {opened}")
    kernel = f"{notebook}?.sessionContext?.session?.kernel?.status"
    wait(f"{name}'s kernel", RUN_S, lambda: page.eval(kernel) == "idle")
    page.eval(f"window.jupyterapp.shell.activateById({notebook}.id)")
    page.eval("void window.jupyterapp.commands.execute('notebook:run-all-cells')")

    def finished() -> str | None:  # every cell ran, or one failed (the rest then never run)
        text = page.eval(f"JSON.stringify({notebook}.content.model.toJSON())")
        cells = [c for c in json.loads(text)["cells"] if c["cell_type"] == "code"]
        failed = any(o.get("output_type") == "error" for c in cells for o in c["outputs"])
        ran = all(c["execution_count"] is not None for c in cells)
        return text if (failed or ran) and page.eval(kernel) == "idle" else None

    cells = json.loads(wait(f"{name} to run", RUN_S, finished))["cells"]
    errors = [
        f"{o.get('ename')}: {o.get('evalue')}"
        for c in cells
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, f"{name}: {errors}"
    frames = page.eval(FRAMES.replace("NOTEBOOK", notebook))
    if shots is not None:
        page.eval(
            f"{notebook}.content.node.querySelector('.jp-OutputArea iframe')?.scrollIntoView()"
        )
        page.screenshot(shots / f"lab_{name}.png")
    saved = root / path
    before = saved.stat().st_mtime_ns
    page.eval("window.jupyterapp.commands.execute('docmanager:save')")
    wait(f"{name} saved", 60, lambda: saved.stat().st_mtime_ns != before)
    assert any(c.get("outputs") for c in cells), "nothing for the save to strip"
    assert _status(root) == "", f"saving {name} changed the tracked notebook: {_status(root)}"
    return frames


def test_every_view_loads_and_a_saved_notebook_stays_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    root = tmp_path / "checkout"
    _checkout(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACE_LAB_LLM_")}
    env |= {
        "ACE_LAB_LLM_BACKEND": "xllamacpp",
        REPLAY_ONLY_ENV: "1",
        "ACE_LAB_CACHE_DIR": str(tmp_path / "cache"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter_config"),
    }
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "ace_lab.lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={TOKEN}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",
    ]
    shots = Path(os.environ["BROWSER_TEST_SHOTS"]) if "BROWSER_TEST_SHOTS" in os.environ else None
    frames: dict[str, list[dict]] = {}
    with (
        jupyter_lab(command, env, tmp_path / "lab.log") as base,
        browser(f"{base}/lab?token={TOKEN}", tmp_path / "profile") as page,
    ):
        wait("JupyterLab", 300, lambda: page.eval("!!window.jupyterapp"))
        page.eval("window.jupyterapp.restored.then(() => true)")  # its commands are there
        for name in NOTEBOOKS:
            frames[name] = _run_and_check(page, name, root, shots)
    for name, seen in frames.items():
        assert seen, f"{name} shows no view"
        for frame in seen:
            assert frame["status"] == 200, f"{name}: {frame}"
            assert "404" not in frame["text"] and frame["view"], f"{name}: {frame}"
