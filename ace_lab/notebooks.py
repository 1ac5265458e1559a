"""Execute the ordered notebooks with papermill (``make reproduce``, the notebook tests).

``python -m ace_lab.notebooks [--smoke] [--output DIR] notebooks/00_setup.ipynb ...`` writes
executed copies to ``notebooks/executed/`` by default. ``--smoke`` applies each notebook's
small parameters from ``notebooks/smoke_parameters.json`` (what CI runs).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from ace_lab.config import REPO_ROOT

NOTEBOOK_DIR = (REPO_ROOT or Path.cwd()) / "notebooks"
SMOKE_FILE = NOTEBOOK_DIR / "smoke_parameters.json"


def smoke_parameters(name: str) -> dict[str, Any]:
    """The smoke parameters for notebook ``name`` (file stem), {} if none are defined."""
    if not SMOKE_FILE.is_file():
        return {}
    return json.loads(SMOKE_FILE.read_text()).get(name, {})


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
        start = time.perf_counter()
        print(f"▶ {notebook} {params or ''}", flush=True)
        output = run_notebook(notebook, args.output, params)
        print(f"✔ {output} ({time.perf_counter() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
