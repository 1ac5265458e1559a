"""A bench script (``bench/<name>.py``, not a package module) loaded as a module for its tests."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tests.support.paths import REPO


def load_bench(name: str) -> ModuleType:
    """``bench/<name>.py`` as the module ``name``, registered in ``sys.modules`` first (its
    dataclasses resolve their module while it loads)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
