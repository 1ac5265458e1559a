"""ace_lab.notebooks.output_dirs: a notebook writes the committed figures/ and results/ tables
only with its default parameters (or ``export=True``); any other run writes under executed/."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from ace_lab.notebooks import (
    NOTEBOOK_DIR,
    every_full_set,
    notebook_defaults,
    output_dirs,
)

PARAMETERS = """# Parameters (papermill overrides these)
dataset = "hotpotqa_dev_sample200"
n = 20
methods = ["naive", "hirag"]
overrides = {}
rebuild = False
label = "x" + "y"           # not a literal: never compared
figures_dir = "../figures"
tables_dir = ""
stop_server = False
export = None
"""


@pytest.fixture
def notebook(tmp_path, monkeypatch):
    """A notebook ``demo.ipynb`` in the working directory (a kernel runs in notebooks/)."""
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# demo"]},
        {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": PARAMETERS},
    ]
    (tmp_path / "demo.ipynb").write_text(json.dumps({"cells": cells}), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return notebook_defaults("demo")


def test_defaults_are_the_literals_of_the_parameters_cell(notebook):
    assert notebook["dataset"] == "hotpotqa_dev_sample200" and notebook["n"] == 20
    assert notebook["export"] is None and "label" not in notebook


def test_the_defaults_write_the_committed_folders(notebook):
    out = output_dirs("demo", dict(notebook))
    assert (out.figures_dir, out.tables_dir, out.exported) == ("../figures", "", True)
    assert "default parameters" in str(out)


def test_papermill_values_equal_to_the_defaults_are_defaults(notebook):
    """JSON turns a tuple into a list and may send 20 as 20.0: the same values."""
    same = dict(notebook, n=20.0, methods=["naive", "hirag"], stop_server=True)
    assert output_dirs("demo", same).exported


@pytest.mark.parametrize(
    "change",
    [
        {"dataset": "musique"},
        {"n": 8},
        {"methods": ["naive"]},
        {"rebuild": 1},
        {"overrides": {"explorers": 1}},
    ],
)
def test_any_other_value_writes_under_executed(notebook, change):
    out = output_dirs("demo", {**notebook, **change})
    assert (out.figures_dir, out.tables_dir, out.exported) == (
        "executed/figures",
        "executed/tables",
        False,
    )
    assert next(iter(change)) in out.reason


def test_export_true_writes_the_committed_folders_whatever_the_parameters(notebook):
    out = output_dirs("demo", {**notebook, "dataset": "musique", "export": True})
    assert (out.figures_dir, out.exported) == ("../figures", True)
    never = output_dirs("demo", {**notebook, "export": False})
    assert (never.figures_dir, never.exported) == ("executed/figures", False)


def test_a_folder_the_run_names_is_kept_and_incomplete_inputs_stay_out(notebook):
    named = output_dirs("demo", {**notebook, "dataset": "musique", "figures_dir": "/tmp/mine"})
    assert named.figures_dir == "/tmp/mine" and named.tables_dir == "executed/tables"
    partial = output_dirs("demo", dict(notebook), complete=False)
    assert partial.figures_dir == "executed/figures" and not partial.exported


def test_every_full_set_needs_every_registered_set_in_full():
    from ace_lab.data.registry import DATASETS

    full = pd.DataFrame({"name": list(DATASETS), "present": "full set"})
    assert every_full_set(full)
    assert not every_full_set(full.iloc[1:])
    assert not every_full_set(full.assign(present=["committed slices"] * len(full)))


NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_decides_its_output_folders(path):
    assert notebook_defaults(path.stem).get("export", "missing") is None
    code = "\n".join(
        "".join(c["source"])
        for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "code"
    )
    assert re.search(rf'output_dirs\("{path.stem}", globals\(\)', code), path.name
    assert "figures_dir = outputs.figures_dir" in code
    if "tables_dir" in notebook_defaults(path.stem):
        assert "tables_dir = outputs.tables_dir" in code


@pytest.mark.parametrize(("given", "passed"), [([], True), (["-p", "stop_server=false"], False)])
def test_a_batch_run_stops_the_server_a_notebook_started(notebook, monkeypatch, given, passed):
    """Regression: ``make reproduce`` left notebook 00's model server running on its port."""
    from ace_lab import notebooks

    runs = []
    monkeypatch.setattr(notebooks, "run_notebook", lambda path, out, params: runs.append(params))
    assert notebooks.main(["demo.ipynb", *given]) == 0
    assert runs == [{"stop_server": passed}]
