"""ace_lab.lab: the options ``make lab`` starts JupyterLab with, and the save hook that keeps a
tracked notebook's outputs out of git (the lab itself in a browser: test_browser_lab.py)."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import nbformat
import pytest

from ace_lab.lab import (
    HOOK,
    START_PAGE,
    clean_tracked_notebook,
    is_tracked,
    lab_arguments,
    strip_outputs,
)
from tests.support.paths import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _ran() -> nbformat.NotebookNode:
    """A notebook as a kernel leaves it: outputs, counts, language details, widget state."""
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# title"),
            nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell("print(x)"),
        ],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
    )
    code = nb.cells[2]
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    code.execution_count = 2
    code.metadata.update(
        {
            "execution": {"iopub.status.idle": "2026"},
            "scrolled": True,
            "jupyter": {"outputs_hidden": True},
        }
    )
    nb.metadata["kernelspec"]["display_name"] = "Python 3 (ipykernel)"  # what ipykernel writes
    nb.metadata["language_info"] = {
        "name": "python",
        "version": "3.11.7",
        "mimetype": "text/x-python",
    }
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    return nb


def test_strip_outputs_keeps_what_a_person_wrote():
    nb = strip_outputs(_ran())
    assert [c.get("outputs") for c in nb.cells] == [None, [], []]
    assert nb.cells[2].execution_count is None and nb.cells[2].metadata == {}
    assert nb.cells[1].metadata == {"tags": ["parameters"]} and nb.cells[2].source == "print(x)"
    assert nb.metadata == {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_committed_notebook_is_saved_as_the_hook_writes_it(path):
    # so saving an unchanged notebook in the lab writes the same bytes: git sees no change
    text = path.read_text(encoding="utf-8")
    written = io.StringIO()
    nbformat.write(strip_outputs(nbformat.reads(text, as_version=4)), written)
    assert written.getvalue() == text


def _repo(root: Path) -> Path:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    nbformat.write(strip_outputs(_ran()), root / "tracked.ipynb")
    subprocess.run([*git, "add", "tracked.ipynb"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], check=True)
    nbformat.write(_ran(), root / "mine.ipynb")
    return root


class _Contents:
    def __init__(self, root: Path) -> None:
        self.root_dir = str(root)


def test_only_a_tracked_notebook_is_stripped_on_save(tmp_path):
    root = _repo(tmp_path)
    assert is_tracked(root / "tracked.ipynb") and not is_tracked(root / "mine.ipynb")
    assert not is_tracked(Path("/") / "not-a-repository.ipynb")
    for path, stripped in (("tracked.ipynb", True), ("mine.ipynb", False)):
        model = {"type": "notebook", "content": _ran()}
        clean_tracked_notebook(model=model, path=path, contents_manager=_Contents(root))
        assert (model["content"].cells[2].outputs == []) is stripped
    text = {"type": "file", "content": "keep", "format": "text"}
    clean_tracked_notebook(model=text, path="tracked.ipynb", contents_manager=_Contents(root))
    assert text["content"] == "keep"


def test_lab_arguments_serve_the_root_open_notebooks_and_allow_root_only_as_root(tmp_path):
    args = lab_arguments(["--port=8899", "--no-browser"], root=tmp_path, uid=1000)
    assert args == [
        f"--ServerApp.root_dir={tmp_path}",
        f"--LabApp.default_url={START_PAGE}",
        f"--ContentsManager.pre_save_hook={HOOK}",
        "--port=8899",
        "--no-browser",
    ]
    assert "--allow-root" in lab_arguments([], root=tmp_path, uid=0)
    # an option given again replaces this module's (Jupyter refuses one given twice)
    again = lab_arguments(["--notebook-dir=/x", "--LabApp.default_url=/lab"], root=tmp_path, uid=0)
    assert not any(
        a.startswith(("--ServerApp.root_dir", f"--LabApp.default_url={START_PAGE}")) for a in again
    )
    assert again[-2:] == ["--notebook-dir=/x", "--LabApp.default_url=/lab"]


def test_the_hook_is_importable_by_the_name_jupyter_is_given():
    from traitlets.utils.importstring import import_item

    assert import_item(HOOK) is clean_tracked_notebook
