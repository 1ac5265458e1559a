"""The tests' own shape: they mirror the package, and conftest files are never imported.

A test of ``ace_lab/<package path>/<module>.py`` is ``tests/<package path>/test_<module>.py``
(``test_<module>_<aspect>.py`` for one aspect of it, ``test_<package>.py`` for the package as a
whole); tests of the whole project live in the folders of :data:`PROJECT_FOLDERS`. Every folder
with a test module is a package, so two ``test_method.py`` in two folders do not collide.
Helpers live in ``tests/support``; fixtures live in ``conftest.py`` files, which pytest loads and
no module imports, and no module imports a test module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import REPO

PACKAGE = REPO / "ace_lab"
TESTS = REPO / "tests"
#: Folders of tests of the whole project rather than of one module (name → what they test).
PROJECT_FOLDERS = {
    "project": "the architecture, the documentation and the README",
    "committed": "committed results and figures, remade from committed records",
    "notebooks": "the notebooks: smoke runs, one pytest process each in make test, and style",
    "bench": "the bench/ scripts",
    "browser": "JupyterLab and the what-if panel in headless Chromium",
    "reliability": "reliability properties (make reliability runs their full counts)",
}
#: Folders under tests/ that hold no test module: helpers and data files.
NOT_TESTS = {"support"}


def mirror_problem(test_file: Path, package: Path = PACKAGE) -> str | None:
    """Why ``test_file`` (relative to tests/) does not mirror ``package``, or None."""
    folder = test_file.parent
    if folder.parts and folder.parts[0] in PROJECT_FOLDERS:
        return None if len(folder.parts) == 1 else f"{test_file}: nested in a project folder"
    if folder.parts and folder.parts[0] in NOT_TESTS:
        return f"{test_file}: a test module among the helpers"
    source = package.joinpath(*folder.parts)
    if not (source / "__init__.py").is_file():
        return f"{test_file}: ace_lab/{folder.as_posix()} is no package"
    names = {p.stem for p in source.glob("*.py") if p.stem != "__init__"} | {source.name}
    tested = test_file.stem.removeprefix("test_")
    if not any(tested == n or tested.startswith(f"{n}_") for n in names):
        return f"{test_file}: names no module of ace_lab/{folder.as_posix()}"
    return None


def imported_tests_modules(source: str, module: str) -> list[str]:
    """The conftest and test modules that ``source`` (module ``module``) imports."""
    package = module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            names = [origin, *(f"{origin}.{a.name}" for a in node.names)]
        else:
            continue
        found += [n for n in names if n.split(".")[-1] == "conftest" or _is_test(n)]
    return sorted(set(found))


def _is_test(name: str) -> bool:
    return name.split(".")[0] == "tests" and name.split(".")[-1].startswith("test_")


def _module(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_every_test_module_mirrors_a_package_or_sits_in_a_project_folder():
    files = sorted(p.relative_to(TESTS) for p in TESTS.rglob("test_*.py"))
    assert len(files) > 200, "no test modules found"
    problems = [problem for f in files if (problem := mirror_problem(f))]
    assert not problems, "move or rename (tests/<package path>/test_<module>.py):\n" + "\n".join(
        problems
    )


def test_every_folder_of_test_modules_is_a_package():
    folders = {p.parent for p in TESTS.rglob("*.py")}
    missing = sorted(str(f.relative_to(REPO)) for f in folders if not (f / "__init__.py").is_file())
    assert not missing, f"add an __init__.py to: {missing}"


def test_no_module_imports_a_conftest_or_a_test_module():
    found = []
    for path in sorted([*TESTS.rglob("*.py"), *(REPO / "bench").rglob("*.py")]):
        for name in imported_tests_modules(path.read_text(encoding="utf-8"), _module(path)):
            found.append(f"{path.relative_to(REPO)} imports {name}")
    assert not found, "move what they share to tests/support:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "test_file, problem",
    [
        ("eval/metrics/test_table.py", None),
        ("eval/metrics/test_table_toy_rows.py", None),  # an aspect of the module
        ("eval/statistics/test_statistics.py", None),  # the package as a whole
        ("test_cli_errors.py", None),  # ace_lab/cli.py
        ("eval/test_metrics.py", "names no module of ace_lab/eval"),  # eval/metrics/ mirrors it
        ("project/test_anything.py", None),
        ("eval/test_no_such_module.py", "names no module of ace_lab/eval"),
        ("evaluation/test_table.py", "ace_lab/evaluation is no package"),
        ("project/more/test_x.py", "nested in a project folder"),
        ("support/test_x.py", "a test module among the helpers"),
    ],
)
def test_the_mirror_rule_tells_a_mirror_from_a_stray(test_file, problem):
    found = mirror_problem(Path(test_file))
    assert found is None if problem is None else problem in found


@pytest.mark.parametrize(
    "source, imported",
    [
        ("from tests.conftest import ScriptedClient\n", ["tests.conftest"]),
        ("import tests.conftest\n", ["tests.conftest"]),
        ("from tests.llm.test_inflight import remote\n", ["tests.llm.test_inflight"]),
        ("from tests.llm import test_inflight\n", ["tests.llm.test_inflight"]),
        ("def f():\n    from .conftest import x\n", ["tests.graph.conftest"]),
        ("from . import test_url\n", ["tests.graph.test_url"]),
        ("from tests.support.scripted import ScriptedClient\n", []),
        ("from ace_lab.eval.judging import test_fixtures\n", []),  # not a module of tests
    ],
)
def test_the_import_check_sees_every_form(source, imported):
    assert imported_tests_modules(source, "tests.graph.test_build") == imported
