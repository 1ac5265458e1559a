"""The package's shape: layers that import only downward, no package cycles, small modules.

Layers, lowest first (a module may import its own layer and the ones below it, never above):

  core       config, tokens, bounded, trace, evidence, prompts
  services   llm, embed, index
  data       data
  graph      graph
  retrieval  retrieval
  methods    methods, ace, arc, mosaic
  registry   registry
  top        eval, viz, widgets, ask, notebooks, cli, cli_commands, __main__

Deferred (function-level) imports count like top-level ones; imports under ``TYPE_CHECKING``
count for the layer rule but not for cycles (they never run).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ace_lab"
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("config", "tokens", "bounded", "steps", "trace", "evidence", "prompts", "sqlite_wal")),
    ("services", ("llm", "embed", "index")),
    ("data", ("data",)),
    ("graph", ("graph",)),
    ("retrieval", ("retrieval",)),
    ("methods", ("methods", "ace", "arc", "mosaic")),
    ("registry", ("registry",)),
    ("top", ("eval", "viz", "widgets", "ask", "notebooks", "cli", "cli_commands", "__main__")),
)
RANK = {part: rank for rank, (_, parts) in enumerate(LAYERS) for part in parts}
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top(module: str) -> str:
    """The first-level part of an ace_lab module name ("" for the package itself)."""
    parts = module.split(".")
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
                found.append((name, runs, child.lineno))
            visit(child, runs)

    visit(tree, True)
    return [(name, runs, line) for name, runs, line in found if name.split(".")[0] == "ace_lab"]


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_belongs_to_a_layer():
    unplaced = sorted({_top(_module_name(p)) for p in MODULES} - set(RANK) - {""})
    assert not unplaced, f"place these in LAYERS (tests/test_architecture.py): {unplaced}"


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


def test_no_module_is_over_the_size_limit():
    sizes = defaultdict(int)
    for path in MODULES:
        sizes[str(path.relative_to(PACKAGE.parent))] = len(path.read_text().splitlines())
    too_big = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not too_big, f"modules over {MAX_LINES} lines (split by concept): {too_big}"


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from ace_lab.eval import x\n", [("ace_lab.eval", True)]),
        ("def f():\n    import ace_lab.cli\n", [("ace_lab.cli", True)]),
        ("if TYPE_CHECKING:\n    from ace_lab.graph import G\n", [("ace_lab.graph", False)]),
        ("from . import sibling\n", [("ace_lab.methods", True)]),
        ("import numpy\n", []),
    ],
)
def test_the_import_scanner_sees_every_kind_of_import(tmp_path, source, expected, monkeypatch):
    fake = tmp_path / "ace_lab" / "methods" / "m.py"
    fake.parent.mkdir(parents=True)
    fake.write_text(source)
    monkeypatch.setattr(f"{__name__}.PACKAGE", tmp_path / "ace_lab")
    assert [(n, r) for n, r, _ in _imports(fake)] == expected
