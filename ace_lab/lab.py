"""The JupyterLab of ``make lab``: the checkout's root served, ``notebooks/`` opened, and tracked
notebooks saved without their outputs.

``python -m ace_lab.lab [JupyterLab options]`` (``make lab LAB_ARGS="--port=8899 --no-browser"``)
starts JupyterLab with :func:`lab_arguments`:

- the server's root is the repository, not ``notebooks/``: the notebooks show the pyvis views
  they export to ``figures/`` as ``IFrame("../figures/<view>.html")``, a URL that a server
  rooted at ``notebooks/`` answers with "404 : Not Found";
- the lab opens on ``notebooks/``;
- ``--allow-root`` is added when the user is root (containers, CI), where Jupyter refuses to
  start without it;
- every save of a notebook that git tracks goes through :func:`clean_tracked_notebook` (the
  contents manager's ``pre_save_hook``): outputs, execution counts and the metadata a run adds
  are dropped before the file is written, so running and saving a committed notebook leaves
  ``git status`` clean. This needs no ``git config`` (a fresh clone works as it is); a notebook
  git does not track (your own) keeps its outputs, and executed copies with outputs are what
  ``python -m ace_lab.notebooks`` writes to ``notebooks/executed/``.

An option given on the command line replaces the one set here (``--ServerApp.root_dir=…``,
``--LabApp.default_url=…``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ace_lab.config import REPO_ROOT

#: The page the lab opens on (relative to the server's root).
START_PAGE = "/lab/tree/notebooks"
#: Where a save passes through (an import string, as Jupyter's configuration takes it).
HOOK = "ace_lab.lab.clean_tracked_notebook"
#: Notebook metadata that running a notebook writes: widget state, papermill's record (and the
#: kernel's language details, of which only the language's name is kept).
RUN_METADATA = ("widgets", "papermill")
#: The display name the notebooks give each kernel they name: a running kernel writes its own
#: (``Python 3 (ipykernel)``, a conda environment's name …), which is the machine's, not theirs.
KERNEL_DISPLAY_NAMES = {"python3": "Python 3"}
#: Cell metadata that running or viewing a cell writes (timings, a scrolled or collapsed output).
RUN_CELL_METADATA = ("execution", "ExecuteTime", "scrolled", "collapsed", "papermill")


def strip_outputs(notebook: dict[str, Any]) -> dict[str, Any]:
    """``notebook`` (an nbformat 4 dict, changed in place and returned) without outputs,
    execution counts or run-time metadata: what a committed notebook holds."""
    metadata = notebook.get("metadata", {})
    for key in RUN_METADATA:
        metadata.pop(key, None)
    kernel = metadata.get("kernelspec", {})
    if kernel.get("name") in KERNEL_DISPLAY_NAMES:
        kernel["display_name"] = KERNEL_DISPLAY_NAMES[kernel["name"]]
    if "language_info" in metadata:  # the kernel's version, mimetype, lexer …: this machine's
        metadata["language_info"] = {"name": metadata["language_info"].get("name", "python")}
    for cell in notebook.get("cells", []):
        metadata = cell.get("metadata", {})
        for key in RUN_CELL_METADATA:
            metadata.pop(key, None)
        hidden = metadata.get("jupyter", {})
        hidden.pop("outputs_hidden", None)  # a collapsed output: a view, not the notebook
        if "jupyter" in metadata and not hidden:
            metadata.pop("jupyter")
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
    return notebook


def is_tracked(path: Path) -> bool:
    """Whether git tracks the file at ``path`` (False outside a repository or without git)."""
    try:
        done = subprocess.run(
            ["git", "ls-files", "--error-unmatch", "--", path.name],
            cwd=path.parent,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def clean_tracked_notebook(
    model: dict[str, Any], path: str, contents_manager: Any, **_: Any
) -> None:
    """Jupyter's ``pre_save_hook``: strip a git-tracked notebook's outputs before it is saved.

    ``path`` is the API path under the server's root; files other than notebooks, and
    notebooks git does not track, are saved as they are."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    root = Path(getattr(contents_manager, "root_dir", "") or ".")
    if is_tracked(root / path.lstrip("/")):
        strip_outputs(model["content"])


#: Other spellings of the options set here (Jupyter refuses an option given twice).
_SAME_OPTION = {
    "--notebook-dir": "--ServerApp.root_dir",
    "--ServerApp.notebook_dir": "--ServerApp.root_dir",
    "--FileContentsManager.pre_save_hook": "--ContentsManager.pre_save_hook",
}


def _option(argument: str) -> str:
    name = argument.split("=", 1)[0]
    return _SAME_OPTION.get(name, name)


def lab_arguments(
    extra: Sequence[str] = (), root: Path | None = None, uid: int | None = None
) -> list[str]:
    """JupyterLab's command-line options for ``root`` (default: the checkout), then ``extra``;
    an option ``extra`` gives replaces this function's (Jupyter takes each once).
    ``--allow-root`` is added when ``uid`` (default: this process's) is 0."""
    root = root or REPO_ROOT or Path.cwd()
    uid = os.geteuid() if uid is None else uid
    given = {_option(argument) for argument in extra if argument.startswith("--")}
    defaults = [
        f"--ServerApp.root_dir={root}",
        f"--LabApp.default_url={START_PAGE}",
        f"--ContentsManager.pre_save_hook={HOOK}",
        *(["--allow-root"] if uid == 0 else []),
    ]
    return [*(a for a in defaults if _option(a) not in given), *extra]


def main(argv: Sequence[str] | None = None) -> int:
    """Run JupyterLab with :func:`lab_arguments` and ``argv`` (default: this command line's)."""
    from jupyterlab.labapp import LabApp

    LabApp.launch_instance(argv=lab_arguments(sys.argv[1:] if argv is None else argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
