"""Compositions: ``<source>><method>`` — a method run over another method's evidence.

``mosaic>ace-full``, ``arcrag>ace-adaptive``, ``hipporag@hierarchical>ace-fixed:gap+depth``: the
part after ``>`` names a method of a plugin that composes (:attr:`MethodPlugin.compose`: ACE's
context policy), the part before it any method whose head a plugin can serve as an evidence
source (:attr:`MethodPlugin.source_heads`: MOSAIC's and ArcRAG's own plugins, ACE's for the
retrieve-then-generate baselines). The source is built from the source method itself
(:attr:`MethodPlugin.source`); this module names no method.
"""

from __future__ import annotations

from collections.abc import Callable

from ace_lab.methods.names import MethodName
from ace_lab.methods.plugin import MethodPlugin
from ace_lab.methods.spec import MethodSpec
from ace_lab.registry.plugins import plugins


def source_heads() -> tuple[str, ...]:
    """Every name head that can be a composition's source."""
    return tuple(head for p in plugins() if p.source is not None for head in p.source_heads)


def _composer(parts: MethodName) -> MethodPlugin | None:
    if not parts.policy:
        return None
    return next((p for p in plugins() if p.composes(parts.policy)), None)


def is_composition(parts: MethodName) -> bool:
    """Whether ``parts`` names a composition (its ``>policy`` is a composing plugin's method)."""
    return _composer(parts) is not None


def resolve(parts: MethodName, spec_of: Callable[[str], MethodSpec]) -> MethodSpec:
    """The spec of composition ``parts``; ``spec_of`` resolves the source's own name."""
    composer = _composer(parts)
    assert composer is not None and composer.compose is not None
    source = spec_of(str(MethodName(parts.head, parts.variant, parts.family)))
    server = next(
        (p for p in plugins() if p.source is not None and parts.head in p.source_heads), None
    )
    if server is None or server.source is None:
        use = ", ".join(source_heads())
        raise KeyError(f"{parts.head!r} cannot be the source of a composition; use one of {use}")
    return composer.compose(parts, source, server.source(source))
