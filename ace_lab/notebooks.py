"""Execute the ordered notebooks with papermill (``make reproduce``, the notebook tests), and
decide where a notebook's figures and tables go.

``python -m ace_lab.notebooks [--smoke] [--output DIR] notebooks/00_setup.ipynb ...`` writes
executed copies to ``notebooks/executed/`` by default. ``--smoke`` applies each notebook's
small parameters from ``notebooks/smoke_parameters.json`` (what CI runs).

The committed ``figures/`` and ``results/`` tables are what the notebooks make with their
default parameters. :func:`output_dirs`, called right after a notebook's ``parameters`` cell,
sends the outputs of any other run (another data set, model, question; papermill ``-p``; an
edited value in the kernel) to ``notebooks/executed/`` instead, so exploring never overwrites
them; ``export = True`` writes to the committed folders anyway, ``export = False`` never.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ace_lab.config import REPO_ROOT

NOTEBOOK_DIR = (REPO_ROOT or Path.cwd()) / "notebooks"
SMOKE_FILE = NOTEBOOK_DIR / "smoke_parameters.json"
#: Where a notebook's outputs go when they are not the committed ones (relative to notebooks/).
EXECUTED_FIGURES, EXECUTED_TABLES = "executed/figures", "executed/tables"
#: Parameters that say where outputs go or how the run behaves, never what it computes.
OUTPUT_PARAMETERS = frozenset({"figures_dir", "tables_dir", "export", "stop_server", "interactive"})


def notebook_path(name: str) -> Path:
    """``<name>.ipynb`` in the working directory (a kernel runs in notebooks/), else in
    :data:`NOTEBOOK_DIR`."""
    here = Path.cwd() / f"{name}.ipynb"
    return here if here.is_file() else NOTEBOOK_DIR / f"{name}.ipynb"


def notebook_defaults(name: str) -> dict[str, Any]:
    """The literal defaults of notebook ``name``'s ``parameters``-tagged cell (file stem);
    an assignment whose value is not a literal is left out."""
    return parameter_defaults(notebook_path(name))


def parameter_defaults(path: Path) -> dict[str, Any]:
    """The literal defaults of the ``parameters``-tagged cell of the notebook at ``path``."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        raise ValueError(f"{path}: expected one cell tagged 'parameters', found {len(tagged)}")
    source = tagged[0]["source"]
    tree = ast.parse("".join(source) if isinstance(source, list) else source)
    defaults: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(target, ast.Name):
                defaults[target.id] = value
    return defaults


def _same(value: Any, default: Any) -> bool:
    """Equal as papermill passes values (JSON: a tuple default arrives as a list, 20 as 20.0
    is the same number, but True is not 1)."""
    if isinstance(value, list | tuple) and isinstance(default, list | tuple):
        return len(value) == len(default) and all(map(_same, value, default))
    if isinstance(value, dict) and isinstance(default, dict):
        return value.keys() == default.keys() and all(_same(value[k], default[k]) for k in value)
    if isinstance(value, bool) or isinstance(default, bool):
        return value is default
    return bool(value == default)


@dataclass(frozen=True)
class OutputDirs:
    """Where a notebook run writes its figures and tables, and why."""

    figures_dir: str
    tables_dir: str  # "": next to each study's results (results/<study>/)
    exported: bool  # True: the committed folders
    reason: str

    def __str__(self) -> str:
        tables = self.tables_dir or "results/ (next to each study)"
        return f"figures -> {self.figures_dir}, tables -> {tables} ({self.reason})"


def output_dirs(name: str, namespace: Mapping[str, Any], *, complete: bool = True) -> OutputDirs:
    """Where notebook ``name`` (file stem) writes, from its parameters' current values in
    ``namespace`` (the kernel's ``globals()``) against the defaults in its file.

    With every parameter at its default (those in :data:`OUTPUT_PARAMETERS` aside) and
    ``complete`` (the notebook's inputs are the reference machine's, e.g. every benchmark's
    full data for notebook 00), outputs go to the committed ``figures_dir``/``tables_dir``;
    otherwise to ``executed/figures`` and ``executed/tables`` — unless the run named its own
    folder, which is kept. ``export`` (``True``/``False``) in ``namespace`` overrides the choice.
    """
    defaults = notebook_defaults(name)
    changed = [
        key
        for key, default in defaults.items()
        if key not in OUTPUT_PARAMETERS and key in namespace and not _same(namespace[key], default)
    ]
    export = namespace.get("export")
    if export is not None:
        exported, reason = bool(export), f"export={bool(export)}"
    elif changed:
        exported, reason = False, "parameters changed: " + ", ".join(changed)
    elif not complete:
        exported, reason = False, "this machine's inputs differ from the committed outputs'"
    else:
        exported, reason = True, "default parameters"
    dirs = {}
    for key, executed in (("figures_dir", EXECUTED_FIGURES), ("tables_dir", EXECUTED_TABLES)):
        value = str(namespace.get(key, defaults.get(key, "")))
        chosen = value != str(defaults.get(key, ""))  # a folder the run named itself
        dirs[key] = value if exported or chosen or key not in defaults else executed
    return OutputDirs(dirs["figures_dir"], dirs["tables_dir"], exported, reason)


def smoke_parameters(name: str) -> dict[str, Any]:
    """The smoke parameters for notebook ``name`` (file stem), {} if none are defined."""
    if not SMOKE_FILE.is_file():
        return {}
    return json.loads(SMOKE_FILE.read_text()).get(name, {})


def every_full_set(overview: Any) -> bool:
    """Whether a data overview (:func:`ace_lab.data.dataset_overview`) lists every registered
    set from its full data, as on the machine that made notebook 00's committed figures (a
    fresh clone has only the committed slices: its overview plots other numbers)."""
    from ace_lab.data.access import FULL
    from ace_lab.data.registry import DATASETS

    if "present" in overview and not (overview["present"] == FULL).all():
        return False
    return sorted(overview["name"]) == sorted(DATASETS)


def sent_to_model(traces: Iterable[Any]) -> int:
    """LLM calls of ``traces`` (:class:`ace_lab.trace.Trace`) that the model answered, not the
    response cache or a replayed archive: a figure of such answers is this machine's model's,
    so it is not the committed one (``output_dirs(..., complete=not sent_to_model(...))``)."""
    return sum(int(trace.summary()["model_calls"]) for trace in traces)


def run_notebook(
    path: Path | str,
    output_dir: Path | str | None = None,
    parameters: dict[str, Any] | None = None,
    timeout_s: int = 3600,
) -> Path:
    """Execute ``path`` with papermill in its own directory; return the executed copy's path."""
    import papermill

    path = Path(path).resolve()
    output_dir = Path(output_dir or path.parent / "executed").resolve()
    output_dir.mkdir(parents=True, exist_ok=True)
    output = output_dir / path.name
    # The kernel must be this interpreter (the project's venv), whatever PATH says.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    papermill.execute_notebook(
        str(path),
        str(output),
        parameters=parameters or {},
        cwd=str(path.parent),
        kernel_name="python3",
        execution_timeout=timeout_s,
        progress_bar=False,
    )
    return output


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run notebooks under papermill.")
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--smoke", action="store_true", help="use smoke_parameters.json")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("-p", "--param", action="append", default=[], metavar="NAME=JSON")
    args = parser.parse_args(argv)
    extra = {}
    for item in args.param:
        name, _, value = item.partition("=")
        try:
            extra[name] = json.loads(value)
        except json.JSONDecodeError:
            extra[name] = value
    for notebook in args.notebooks:
        params = (smoke_parameters(notebook.stem) if args.smoke else {}) | extra
        # A batch run leaves behind no model server it started: a notebook that can stop the
        # one it started is told to (server.stop_own: one serving before the run keeps serving;
        # an explicit -p stop_server=false keeps any).
        if "stop_server" in parameter_defaults(notebook):
            params = {"stop_server": True} | params
        start = time.perf_counter()
        print(f"▶ {notebook} {params or ''}", flush=True)
        output = run_notebook(notebook, args.output, params)
        print(f"✔ {output} ({time.perf_counter() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
