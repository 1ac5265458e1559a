"""Every notebook executes under papermill with its smoke parameters (what CI runs)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from ace_lab.notebooks import NOTEBOOK_DIR, run_notebook, smoke_parameters

NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))


def test_every_notebook_has_a_parameters_cell_first_code_cell():
    assert NOTEBOOKS, "no notebooks found"
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        first_code = next(c for c in nb.cells if c.cell_type == "code")
        assert "parameters" in first_code.metadata.get("tags", []), path.name
        assert smoke_parameters(path.stem), f"{path.name} has no smoke parameters"


@pytest.mark.notebook
@pytest.mark.integration
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_with_smoke_parameters(path: Path, tmp_path: Path):
    params = smoke_parameters(path.stem)
    if "figures_dir" in params:
        params["figures_dir"] = str(tmp_path / "figures")
    output = run_notebook(path, tmp_path, params)
    nb = nbformat.read(output, as_version=4)
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors
    if "figures_dir" in params:
        assert list((tmp_path / "figures").glob("*.png")), "no figure exported"
