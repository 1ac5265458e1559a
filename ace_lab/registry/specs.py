"""The table of every method and the one lookup that resolves any name to its ``MethodSpec``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

import pandas as pd

from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.registry import ace, arc, auto, compose, mosaic
from ace_lab.registry.baselines import BASELINE_SPECS
from ace_lab.registry.budget import budgeted
from ace_lab.registry.method_spec import MethodSpec
from ace_lab.registry.names import MethodName, parse
from ace_lab.retrieval import RetrievalGraph

#: Every registered method, in table order (tables list methods in this order).
SPECS: tuple[MethodSpec, ...] = (
    *BASELINE_SPECS,
    *ace.ACE_SPECS,
    *mosaic.MOSAIC_SPECS,
    *arc.ARC_SPECS,
)
REGISTRY: dict[str, MethodSpec] = {s.name: s for s in SPECS}
#: Registered names in table order.
METHODS: tuple[str, ...] = tuple(REGISTRY)

#: Which method family resolves a parsed name that is not registered, by its head.
_RESOLVERS: tuple[tuple[Callable[[str], bool], Callable[[MethodName], MethodSpec]], ...] = (
    (mosaic.is_mosaic, mosaic.resolve),
    (arc.is_arc, arc.resolve),
    (ace.is_ace, ace.resolve),
    (auto.is_auto, auto.resolve),
)


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
    for owns, resolve in _RESOLVERS:
        if owns(parts.head):
            return resolve(parts)
    raise KeyError(f"unknown method {name!r}; known: {', '.join(METHODS)}, ace-fixed:<policy>")


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
            for s in SPECS
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
