"""Every notebook executes under papermill with its smoke parameters (what CI runs).

The smoke runs replay archived LLM responses (``data/responses/``) with
``ACE_LAB_LLM_REPLAY_ONLY`` set: a request that an archive does not hold fails the notebook
instead of starting the model (``ace_lab.llm.replay``). They serve through the xllamacpp wheel,
so the archives' keys (the model identity) are those of every machine, with or without a native
``llama-server`` build. Notebook 00's first section is the live check that the local model
answers (its demonstration call and ping, outside any archive): the only model calls here.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

import nbformat
import pytest

from ace_lab.llm.replay import REPLAY_ONLY_ENV
from ace_lab.notebooks import NOTEBOOK_DIR, run_notebook, smoke_parameters

#: The graph families each graph-building notebook builds (with ``rebuild`` in its smoke
#: parameters): the notebooks that read a family need its builder to have run first.
GRAPH_BUILDERS = {
    "01_hierarchical_graph": ("hierarchical",),
    "02_openie_and_typed_graphs": ("openie", "typed"),
}
#: The parameters of a notebook that name the graph families it reads.
FAMILY_PARAMETERS = ("family", "compared")


def parameters_of(path: Path) -> dict[str, Any]:
    """The notebook's parameters as its smoke test runs it: the literal defaults of its
    parameters cell, overridden by its smoke parameters."""
    nb = nbformat.read(path, as_version=4)
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    defaults: dict[str, Any] = {}
    for node in ast.parse(first_code.source).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            defaults.update(
                {t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)}
            )
    return defaults | smoke_parameters(path.stem)


def families_read(path: Path) -> set[str]:
    """The graph families a notebook loads from its ``graphs_dir`` without building them
    (``openie-bare`` is the openie graph read without its sources)."""
    params = parameters_of(path)
    if "graphs_dir" not in params or params.get("rebuild"):
        return set()
    return {str(params[k]).split("-")[0] for k in FAMILY_PARAMETERS if params.get(k)}


def prerequisites(path: Path) -> list[str]:
    """The notebooks that must have run (in the same ``graphs_dir``) before ``path`` can."""
    wanted = families_read(path)
    return [name for name, built in GRAPH_BUILDERS.items() if wanted & set(built)]


# The notebooks that read graphs come first, so a run of the whole module checks that they pass
# with their prerequisites built by their own test, as when run alone; no notebook runs twice in
# one process. ``make test`` runs each test of ``-m notebook`` in its own pytest process
# (``pytest tests/notebooks/test_smoke_runs.py::...[04_arcrag_interface_and_witness]``), so
# there every notebook is run alone, after the prerequisites its own test builds.
NOTEBOOKS = sorted(
    NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"), key=lambda p: (not prerequisites(p), p.name)
)


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
    04 and 05 load), ``cache`` (an empty response cache, as on CI: only the archives answer)
    and ``runs/<notebook>`` (each executed notebook and its figures)."""
    return tmp_path_factory.mktemp("smoke")


@pytest.fixture(scope="module")
def smoke_runs(smoke_dir: Path) -> dict[str, Path]:
    """The notebooks already executed in ``smoke_dir`` (a prerequisite runs once, whichever
    test needs it first), by name: the folder of the run."""
    return {}


def run_smoke(path: Path, smoke_dir: Path, smoke_runs: dict[str, Path]) -> Path:
    """Execute ``path`` with its smoke parameters after its prerequisites; its run folder."""
    if path.stem in smoke_runs:
        return smoke_runs[path.stem]
    for name in prerequisites(path):
        run = run_smoke(NOTEBOOK_DIR / f"{name}.ipynb", smoke_dir, smoke_runs)
        assert not errors_of(run / f"{name}.ipynb"), f"prerequisite {name} failed"
    run = smoke_dir / "runs" / path.stem
    params = smoke_parameters(path.stem)
    if "figures_dir" in params:
        params["figures_dir"] = str(run / "figures")
    if "graphs_dir" in params:
        params["graphs_dir"] = str(smoke_dir / "graphs")
    run_notebook(path, run, params)
    smoke_runs[path.stem] = run
    return run


def errors_of(executed: Path) -> list[Any]:
    nb = nbformat.read(executed, as_version=4)
    return [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]


@pytest.mark.notebook
@pytest.mark.integration
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_with_smoke_parameters(
    path: Path, smoke_dir: Path, smoke_runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
):
    # The kernel inherits this process's environment: none of this machine's model settings
    # (an endpoint, threads, batch sizes) may change the archives' keys.
    for name in [n for n in os.environ if n.startswith("ACE_LAB_LLM_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ACE_LAB_LLM_BACKEND", "xllamacpp")
    monkeypatch.setenv("ACE_LAB_CACHE_DIR", str(smoke_dir / "cache"))
    monkeypatch.setenv(REPLAY_ONLY_ENV, "1")
    run = run_smoke(path, smoke_dir, smoke_runs)
    assert not errors_of(run / path.name)
    if "figures_dir" in smoke_parameters(path.stem):
        assert list((run / "figures").glob("*.png")), "no figure exported"


def test_every_notebook_that_reads_graphs_has_their_builders_as_prerequisites():
    """Fast: a notebook reading a graph family that no builder declares would fail when run
    alone (or first), with "no <family> graph at ..."."""
    readers = {p.stem: families_read(p) for p in NOTEBOOKS if families_read(p)}
    assert set(readers) >= {"04_arcrag_interface_and_witness", "05_mosaic_policies"}
    built = {family for families in GRAPH_BUILDERS.values() for family in families}
    for name, families in readers.items():
        assert families <= built, f"{name} reads {families - built}: add its builder"
        assert prerequisites(NOTEBOOK_DIR / f"{name}.ipynb"), name
    assert [p.stem for p in NOTEBOOKS[: len(readers)]] == sorted(readers)  # readers first


def test_the_declared_builders_build_their_families():
    for name, families in GRAPH_BUILDERS.items():
        path = NOTEBOOK_DIR / f"{name}.ipynb"
        assert parameters_of(path).get("rebuild") is True, f"{name} does not build in its smoke run"
        code = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        builds = "\n".join(src for src in code if "load_or_build(" in src)
        for family in families:
            assert f'"{family}"' in builds, f"{name} builds no {family} graph"
