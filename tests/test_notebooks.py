"""Every notebook executes under papermill with its smoke parameters (what CI runs).

The smoke runs replay archived LLM responses (``data/responses/``) with
``ACE_LAB_LLM_REPLAY_ONLY`` set: a request that an archive does not hold fails the notebook
instead of starting the model (``ace_lab.llm.replay``). They serve through the xllamacpp wheel,
so the archives' keys (the model identity) are those of every machine, with or without a native
``llama-server`` build. Notebook 00's first section is the live check that the local model
answers (its demonstration call and ping, outside any archive): the only model calls here.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

from ace_lab.llm.replay import REPLAY_ONLY_ENV
from ace_lab.notebooks import NOTEBOOK_DIR, run_notebook, smoke_parameters

NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))


def test_every_notebook_has_a_parameters_cell_first_code_cell():
    assert NOTEBOOKS, "no notebooks found"
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        first_code = next(c for c in nb.cells if c.cell_type == "code")
        assert "parameters" in first_code.metadata.get("tags", []), path.name
        assert smoke_parameters(path.stem), f"{path.name} has no smoke parameters"


@pytest.fixture(scope="module")
def smoke_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the module's runs: ``graphs`` (the graphs 01 and 02 build are the ones
    04 and 05 load, so those run after them; no earlier run's per-chunk records are resumed)
    and ``cache`` (an empty response cache, as on CI: only the archives answer)."""
    return tmp_path_factory.mktemp("smoke")


@pytest.mark.notebook
@pytest.mark.integration
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_with_smoke_parameters(
    path: Path, tmp_path: Path, smoke_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    # The kernel inherits this process's environment: none of this machine's model settings
    # (an endpoint, threads, batch sizes) may change the archives' keys.
    for name in [n for n in os.environ if n.startswith("ACE_LAB_LLM_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ACE_LAB_LLM_BACKEND", "xllamacpp")
    monkeypatch.setenv("ACE_LAB_CACHE_DIR", str(smoke_dir / "cache"))
    monkeypatch.setenv(REPLAY_ONLY_ENV, "1")
    params = smoke_parameters(path.stem)
    if "figures_dir" in params:
        params["figures_dir"] = str(tmp_path / "figures")
    if "graphs_dir" in params:
        params["graphs_dir"] = str(smoke_dir / "graphs")
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
