"""Notebooks keep narrative, parameters, calls and display: logic lives in ``ace_lab``.

For every ordered notebook (``notebooks/NN_*.ipynb``): no ``def`` or ``class`` in a code cell
(a function a notebook needs is a tested ``ace_lab`` function), and no code cell over
:data:`MAX_LINES` lines, except the papermill ``parameters`` cell. Lines are counted on the
``ruff format`` output of the notebook, so a cell cannot meet the limit by compression.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_LINES = 15


def _code_cells(path: Path) -> list[tuple[int, str]]:
    """(cell index, source) of each code cell but the one tagged ``parameters``."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    out = []
    for index, cell in enumerate(cells):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "code" and "parameters" not in tags:
            source = cell["source"]
            out.append((index, "".join(source) if isinstance(source, list) else source))
    return out


def _definitions(source: str) -> list[str]:
    """Names of the functions and classes a cell defines (IPython magics are skipped)."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:  # unparseable: fall back to the keywords at the start of a line
        return [
            line.strip()
            for line in lines
            if line.lstrip().startswith(("def ", "async def ", "class "))
        ]
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    return [getattr(node, "name", "lambda") for node in ast.walk(tree) if isinstance(node, kinds)]


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks/NN_*.ipynb found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_function_or_class_is_defined_in_a_notebook(path):
    defined = [
        f"cell {index}: {name}"
        for index, source in _code_cells(path)
        for name in _definitions(source)
    ]
    assert not defined, f"{path.name} defines {defined}; move them into ace_lab and test them"


def _formatted(path: Path, folder: Path) -> Path:
    """A copy of the notebook in ``folder`` with its code cells as ``ruff format`` writes them."""
    copy = folder / path.name
    shutil.copyfile(path, copy)
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--quiet", "--no-cache", str(copy)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"ruff cannot format {path.name}: {done.stderr}"
    return copy


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_code_cell_is_longer_than_the_limit(path, tmp_path):
    long = [
        f"cell {index}: {len(source.splitlines())} lines"
        for index, source in _code_cells(_formatted(path, tmp_path))
        if len(source.splitlines()) > MAX_LINES
    ]
    assert not long, f"{path.name} has code cells over {MAX_LINES} lines: {long}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_showing_cypher_tables_turns_off_their_tex(path):
    # JupyterLab typesets $...$ in a DataFrame's HTML as TeX: Cypher's $anchors … $chunk_ids
    # became italic math in notebook 04's attempts table
    code = "\n".join(source for _, source in _code_cells(path))
    if "attempts_table(" in code:
        assert '"display.html.use_mathjax", False' in code
