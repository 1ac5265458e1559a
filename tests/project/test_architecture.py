"""The package's shape: layers that import only downward, no package cycles, small modules.

Layers, lowest first (a module may import its own layer and the ones below it, never above):

  core       config, tokens, bounded, steps, trace, evidence, prompts, plugins (the list of
             method packages: strings only)
  services   llm, embed, index
  data       data
  graph      graph
  retrieval  retrieval
  methods    methods (base, the name grammar, MethodSpec, the plugin contract) and every
             registered method package (ace_lab.plugins.METHOD_PACKAGES)
  registry   registry
  analysis   eval, viz (generic: never a method package, in any import form)
  reports    <method>.report for every method package: its top floor (tables, figures, views)
  top        widgets, ask, notebooks, lab, cli, cli_commands, __main__

The method packages and their reports are read from the registered plugins, so a new method
package is placed by joining ``METHOD_PACKAGES``, never by editing this file.

Module sizes are counted on ``ruff format`` output (the test fails while a module is not
formatted), and ``# fmt: skip`` is allowed only on a literal table (an assignment of a tuple,
list or dict display), so no limit is met by compression. The size and ``# fmt: skip`` rules
hold for every module under ``tests/`` too.

Deferred (function-level) imports count like top-level ones; imports under ``TYPE_CHECKING``
count for the layer rule but not for cycles (they never run).
"""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import tokenize
from collections import defaultdict
from pathlib import Path

import networkx as nx
import pytest

from ace_lab.plugins import METHOD_PACKAGES as REGISTERED
from tests.support.paths import REPO

PACKAGE = REPO / "ace_lab"
#: The method packages this installation registers, by their part name (``ace``, ``arc``, …).
METHOD_PACKAGES = tuple(p.removeprefix("ace_lab.") for p in REGISTERED if p.startswith("ace_lab."))
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "core",
        (
            "config",
            "tokens",
            "bounded",
            "steps",
            "trace",
            "evidence",
            "prompts",
            "sqlite_wal",
            "plugins",
        ),
    ),
    ("services", ("llm", "embed", "index")),
    ("data", ("data",)),
    ("graph", ("graph",)),
    ("retrieval", ("retrieval",)),
    ("methods", ("methods", *METHOD_PACKAGES)),
    ("registry", ("registry",)),
    ("analysis", ("eval", "viz")),
    ("reports", tuple(f"{m}.report" for m in METHOD_PACKAGES)),
    ("top", ("widgets", "ask", "notebooks", "lab", "cli", "cli_commands", "__main__")),
)
RANK = {part: rank for rank, (_, parts) in enumerate(LAYERS) for part in parts}
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top(module: str) -> str:
    """The layer part of an ace_lab module name: its first-level package, or
    ``<method>.report`` for a method's report ("" for the package itself)."""
    parts = module.split(".")
    if len(parts) > 2 and parts[1] in METHOD_PACKAGES and parts[2] == "report":
        return f"{parts[1]}.report"
    return parts[1] if len(parts) > 1 else ""


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path) -> list[tuple[str, bool, int]]:
    """(imported ace_lab module, runs at import or call time, line) for every import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: list[tuple[str, bool, int]] = []

    def visit(node: ast.AST, runs: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for stmt in child.body:
                    visit(ast.Module(body=[stmt], type_ignores=[]), False)
                for stmt in child.orelse:
                    visit(ast.Module(body=[stmt], type_ignores=[]), runs)
                continue
            if isinstance(child, ast.Import):
                found.extend((a.name, runs, child.lineno) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    name = ".".join([*base, child.module] if child.module else base)
                else:
                    name = child.module or ""
                # ``from ace_lab import eval`` and ``from .. import report`` import a module
                # named by the alias: record ``<from>.<alias>`` so its layer is seen
                found.extend((f"{name}.{a.name}", runs, child.lineno) for a in child.names)
            visit(child, runs)

    visit(tree, True)
    return [(name, runs, line) for name, runs, line in found if name.split(".")[0] == "ace_lab"]


MODULES = sorted(PACKAGE.rglob("*.py"))
TESTS = REPO / "tests"
#: Every module the size limit and the literal-table rule hold for: the package's and the tests'.
SIZED = [*MODULES, *sorted(TESTS.rglob("*.py"))]


def test_every_module_belongs_to_a_layer():
    unplaced = sorted({_top(_module_name(p)) for p in MODULES} - set(RANK) - {""})
    assert not unplaced, f"place these in LAYERS (tests/project/test_architecture.py): {unplaced}"


def test_imports_only_go_downward():
    violations = []
    for path in MODULES:
        source = _top(_module_name(path))
        if source not in RANK:
            continue
        for name, _, line in _imports(path):
            target = _top(name)
            if target and target in RANK and RANK[target] > RANK[source]:
                rel = path.relative_to(PACKAGE.parent)
                violations.append(f"{rel}:{line} imports {name} (a higher layer)")
    assert not violations, "\n".join(violations)


def test_no_import_cycles_between_packages():
    graph = nx.DiGraph()
    for path in MODULES:
        source = _top(_module_name(path))
        for name, runs, _ in _imports(path):
            target = _top(name)
            if runs and target and source and target != source:
                graph.add_edge(source, target)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, f"package import cycles: {cycles}"


#: The one arrow from analysis into a method package, named with its reason: the chooser's
#: model and cross-validation (``ace_lab.chooser``, below) are fitted by
#: ``eval/reporting/chooser.py``, whose command the committed model file records (moving the
#: module changes the file, its sha256 and so ``auto``'s configuration hash and records).
ANALYSIS_IMPORTS: dict[str, str] = {"ace_lab/eval/reporting/chooser.py": "chooser"}


def test_analysis_imports_no_method_package():
    """``eval`` and ``viz`` are generic: what is specific to one method lives in its package."""
    found = []
    for path in MODULES:
        if _top(_module_name(path)) not in ("eval", "viz"):
            continue
        rel = str(path.relative_to(PACKAGE.parent))
        for name, _, line in _imports(path):
            package = _top(name).split(".")[0]
            if package in METHOD_PACKAGES and ANALYSIS_IMPORTS.get(rel) != package:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}")
    assert not found, "\n".join(found)


def test_every_module_is_formatted():
    """Sizes below are counted on ``ruff format`` output: an unformatted module fails here."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--quiet", str(PACKAGE), str(TESTS)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"run `ruff format ace_lab tests`:\n{done.stdout}{done.stderr}"


def _skip_lines(source: str) -> list[int]:
    """Lines with a ``# fmt: skip`` comment (a string that spells one is no comment)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [
        t.start[0]
        for t in tokens
        if t.type == tokenize.COMMENT and "fmt: skip" in t.string.replace("fmt:skip", "fmt: skip")
    ]


def _literal_table_ends(tree: ast.AST) -> set[int]:
    """Last lines of assignments whose value is a tuple, list, dict or set display."""
    displays = (ast.Tuple, ast.List, ast.Dict, ast.Set)
    return {
        node.end_lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, displays)
    }


def test_fmt_skip_only_on_literal_tables():
    found = []
    for path in SIZED:
        lines = _skip_lines(path.read_text(encoding="utf-8"))
        if lines:
            tables = _literal_table_ends(ast.parse(path.read_text(encoding="utf-8")))
            rel = path.relative_to(PACKAGE.parent)
            found.extend(f"{rel}:{line}" for line in lines if line not in tables)
    assert not found, "`# fmt: skip` outside a literal table (split instead):\n" + "\n".join(found)


def test_the_fmt_skip_rule_tells_a_table_from_code():
    source = "T = (\n  1, 2,\n)  # fmt: skip\nx = f(1,\n  2)  # fmt: skip\n"
    tree = ast.parse(source)
    assert _literal_table_ends(tree) == {3}
    assert _skip_lines(source) == [3, 5]
    assert _skip_lines('s = "# fmt: skip"\nt = """\n# fmt: skip\n"""\n') == []
    assert _skip_lines("x = 1  # noqa: E501 # fmt:skip\n") == [1]


def test_no_module_is_over_the_size_limit():
    sizes = defaultdict(int)
    for path in SIZED:
        sizes[str(path.relative_to(PACKAGE.parent))] = len(path.read_text().splitlines())
    too_big = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not too_big, f"modules over {MAX_LINES} lines (split by concept): {too_big}"


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from ace_lab.eval import x\n", [("ace_lab.eval.x", True)]),
        ("def f():\n    import ace_lab.cli\n", [("ace_lab.cli", True)]),
        ("if TYPE_CHECKING:\n    from ace_lab.graph import G\n", [("ace_lab.graph.G", False)]),
        ("from . import sibling\n", [("ace_lab.methods.sibling", True)]),
        ("from ace_lab import eval\n", [("ace_lab.eval", True)]),
        ("from .. import ace\n", [("ace_lab.ace", True)]),
        ("from ..arc import report\n", [("ace_lab.arc.report", True)]),
        ("import numpy\n", []),
    ],
)
def test_the_import_scanner_sees_every_kind_of_import(tmp_path, source, expected, monkeypatch):
    fake = tmp_path / "ace_lab" / "methods" / "m.py"
    fake.parent.mkdir(parents=True)
    fake.write_text(source)
    monkeypatch.setattr(f"{__name__}.PACKAGE", tmp_path / "ace_lab")
    assert [(n, r) for n, r, _ in _imports(fake)] == expected
