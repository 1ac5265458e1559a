"""The table of every method and the one lookup that resolves any name to its ``MethodSpec``.

The baselines' rows, then each registered plugin's (:mod:`ace_lab.registry.plugins`), in table
order; a name that is not registered is resolved by the plugin that owns its head."""

from __future__ import annotations

import importlib
from types import ModuleType

import pandas as pd

from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.methods.names import parse
from ace_lab.methods.spec import MethodSpec
from ace_lab.registry import compose
from ace_lab.registry.baselines import BASELINE_SPECS
from ace_lab.registry.budget import budgeted
from ace_lab.registry.plugins import plugin_of, plugins
from ace_lab.retrieval import RetrievalGraph


def registered_specs() -> tuple[MethodSpec, ...]:
    """Every registered method now (the baselines, then each plugin's), in table order."""
    own = (p.resolve(parse(n), lambda m: spec(m)) for p in plugins() for n in p.registered)
    return (*BASELINE_SPECS, *own)


#: Every registered method at import, in table order (tables list methods in this order).
SPECS: tuple[MethodSpec, ...] = registered_specs()
REGISTRY: dict[str, MethodSpec] = {s.name: s for s in SPECS}
#: Registered names in table order.
METHODS: tuple[str, ...] = tuple(REGISTRY)


def spec(name: str) -> MethodSpec:
    """The spec of ``name``: a registered method or any name of the grammar
    ``head[:variant][@family][>policy]`` (``ace-fixed:gap+depth``, ``arcrag:r3p5@openie``,
    ``mosaic-budget-matched:12x2``, ``ace-adaptive@graphrag``, ``ace>gap+depth``, and the
    compositions ``mosaic>ace-full``, ``arcrag>ace-adaptive``)."""
    if name in REGISTRY:
        return REGISTRY[name]
    parts = parse(name)
    if compose.is_composition(parts):  # source>ace-…: ACE over another method's evidence
        return compose.resolve(parts, spec)
    at_budget = budgeted(parts, spec)  # <name>+b<N>: the method at another context budget
    if at_budget is not None:
        return at_budget
    owner = plugin_of(parts.head)
    if owner is not None:
        return owner.resolve(parts, spec)
    raise KeyError(
        f"unknown method {name!r}; known: {', '.join(METHODS)} (ace-lab methods lists every form)"
    )


def canonical_name(name: str) -> str:
    """The name runs and tables use for ``name`` (``ace>gap+depth`` → ``ace-fixed:gap+depth``)."""
    return spec(name).name


def make_method(name: str, graph: RetrievalGraph, llm: LLM) -> Method:
    """The method called ``name`` over ``graph`` (see :func:`spec`)."""
    return spec(name).make(graph, llm)


def graph_family(name: str) -> str:
    """The graph family method ``name`` reads."""
    return spec(name).family


def report(name: str) -> ModuleType | None:
    """The report package of method ``name`` (tables, figures, step views), imported now;
    None for a baseline or while the method has no report package yet."""
    path = spec(name).report
    if not path:
        return None
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError as exc:
        if exc.name == path:
            return None
        raise


def method_table() -> pd.DataFrame:
    """Every registered method with its graph family, store use and one-line description."""
    return pd.DataFrame(
        [
            {
                "method": s.name,
                "family": s.family,
                "cypher store": s.needs_store,
                "description": s.description,
            }
            for s in registered_specs()
        ]
    )


def describe_method(name: str) -> pd.DataFrame:
    """Every setting ``name`` runs with: one row per field of each of its configurations,
    with value, default, accepted values and help text."""
    rows = [
        {"config": type(config).__name__, **row}
        for config in spec(name).configs
        for row in type(config).describe(config)
    ]
    return pd.DataFrame(rows, columns=["config", "field", "value", "default", "accepts", "help"])
