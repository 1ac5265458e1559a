"""The method plugin contract: one object per method package, which the suite iterates over.

A method package (``ace_lab/<m>/``) declares in ``plugin.py`` one :class:`MethodPlugin` named
``PLUGIN`` and is listed once in :data:`ace_lab.plugins.METHOD_PACKAGES`. Everything outside the
package reads the method through that object and never names it:

- the registry (:mod:`ace_lab.registry`) resolves a name whose head the plugin
  :meth:`~MethodPlugin.owns` with :attr:`~MethodPlugin.resolve`, lists
  :attr:`~MethodPlugin.registered` in ``ace-lab methods`` and prints its
  :attr:`~MethodPlugin.variants`;
- composition (``<source>><method>``) builds an evidence source with the source plugin's
  :attr:`~MethodPlugin.source` and hands it to the plugin whose :attr:`~MethodPlugin.compose`
  takes the name after ``>``;
- records read its typed step payloads from ``<package>.steps`` (:mod:`ace_lab.steps`);
- tables, views, the stepper, the verdict table, ``ace-lab liveness`` and ``ace-lab docs`` import
  its :attr:`~MethodPlugin.report` package; figures name it by :attr:`~MethodPlugin.display_names`;
- the what-if panel draws its :attr:`~MethodPlugin.what_if` controls as one tab.

Plain data and callables only, so the contract sits in the methods layer beside
:class:`~ace_lab.methods.base.Method` and :class:`~ace_lab.methods.spec.MethodSpec`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ace_lab.evidence import Evidence, Trace
from ace_lab.llm import LLM
from ace_lab.methods.names import MethodName
from ace_lab.methods.spec import MethodSpec
from ace_lab.retrieval import RetrievalGraph

#: Resolves any method name to its spec (the registry's :func:`~ace_lab.registry.spec`), handed
#: to a plugin that builds on other methods (a composition's source, the chooser's candidates).
Lookup = Callable[[str], MethodSpec]


class EvidenceSource(Protocol):
    """A method's evidence served to another method: C_base for a query, and a differential
    retrieval per branch (``depth``, ``breadth``) with the branch's query. A source whose
    evidence comes from a pipeline of its own records that pipeline's steps in ``trace``."""

    name: str
    base_mode: str

    def base(self, query: str, task: str, trace: Trace) -> list[Evidence]: ...

    def differential(self, query: str, branch: str, trace: Trace) -> tuple[str, list[Evidence]]: ...


#: Builds a method's evidence source over a graph and an LLM.
SourceFactory = Callable[[RetrievalGraph, LLM], EvidenceSource]


def instance_source(
    adapter: Callable[[Any], EvidenceSource],
) -> Callable[[MethodSpec], SourceFactory]:
    """A plugin's :attr:`MethodPlugin.source` whose evidence source wraps an instance of the
    method a spec names (``MosaicSource(mosaic)``): the method is built as ``spec`` builds it
    (its policy, settings and graph family), never by a copy of its constructor."""

    def source(spec: MethodSpec) -> SourceFactory:
        return lambda graph, llm: adapter(spec.make(graph, llm))

    return source


@dataclass(frozen=True)
class Knob:
    """One what-if control: ``toggles`` and ``dropdown`` pick one of ``options``; ``slider``
    an integer in ``[low, high]`` by ``step``; ``checkbox`` a switch."""

    key: str
    kind: str  # "toggles" | "dropdown" | "slider" | "checkbox"
    description: str
    default: Any
    options: tuple[str, ...] = ()
    low: int = 0
    high: int = 0
    step: int = 1


@dataclass(frozen=True)
class WhatIfControls:
    """A method's tab of the what-if panel: its knobs, the method name their values stand for,
    and the values a name stands for (the panel opens on a name's settings)."""

    knobs: tuple[Knob, ...]
    name_of: Callable[[Mapping[str, Any]], str]
    values_of: Callable[[MethodName], dict[str, Any]]

    def defaults(self) -> dict[str, Any]:
        return {knob.key: knob.default for knob in self.knobs}


@dataclass(frozen=True)
class MethodPlugin:
    """What one method package declares (module docstring)."""

    #: The package's import path (``ace_lab.mosaic``).
    package: str
    #: What tables, tabs and liveness sections call the method family (``MOSAIC``).
    title: str
    #: Whether the plugin owns a name head (``mosaic-fixed`` → MOSAIC).
    owns: Callable[[str], bool]
    #: The spec of a parsed name the plugin owns; ``Lookup`` resolves other methods' names.
    resolve: Callable[[MethodName, Lookup], MethodSpec]
    #: The names ``ace-lab methods`` lists and tables order by (resolved through ``resolve``).
    registered: tuple[str, ...] = ()
    #: ``(pattern, what it means)`` lines of ``ace-lab methods`` for the plugin's variants.
    variants: tuple[tuple[str, str], ...] = ()
    #: Example names the ``variants`` lines show (each must resolve: tested).
    examples: tuple[str, ...] = ()
    #: Name heads → display names (figures, legends, view titles).
    display_names: Mapping[str, str] = field(default_factory=dict)
    #: Variant tokens that follow a display rule: (regular expression, replacement).
    variant_patterns: tuple[tuple[str, str], ...] = ()
    #: Heads whose methods can serve evidence to a composition, and how: the source of a
    #: resolved spec (None: the plugin serves no evidence).
    source_heads: tuple[str, ...] = ()
    source: Callable[[MethodSpec], SourceFactory] | None = None
    #: Whether the plugin takes another method's evidence for a ``>`` name whose policy part
    #: it owns, and how: (the parsed composition, the source's spec, its source factory) → spec.
    compose: Callable[[MethodName, MethodSpec, SourceFactory], MethodSpec] | None = None
    #: ``(example, meaning)`` lines of ``ace-lab methods`` for its compositions.
    compositions: tuple[tuple[str, str], ...] = ()
    #: Module path of the report package (tables, figures, stepper views, liveness, claims).
    report: str = ""
    #: The plugin's tab of the what-if panel (None: no tab).
    what_if: WhatIfControls | None = None

    def composes(self, policy: str) -> bool:
        """Whether the ``>`` part ``policy`` names one of this plugin's methods over another
        method's evidence (``ace-full`` in ``mosaic>ace-full``; a fixed policy label such as
        ``narrow`` in ``mosaic>narrow`` is not a method)."""
        head = policy.split(":", 1)[0]
        return self.compose is not None and "-" in head and self.owns(head)
