"""Typed step payloads: what each stage of a method decided, as a small frozen dataclass.

Every ``Step`` of a ``Trace`` carries at most one payload (``step.payload``). Views, tables and
the stepper dispatch on the payload's *type* (``isinstance`` or :func:`functools.singledispatch`),
never on a step's name or on dict keys. A record stores a payload with :func:`to_record`
(``{"type": <class name>, "v": <version>, ...fields}``); :func:`from_record` turns it back into
the dataclass, and gives ``None`` for a record written before payloads existed or for a type or
version this package does not know, so old records still load.

The generic payloads live here; the ones specific to one method live in its package's
``steps`` module (``ace_lab.ace.steps``, ``ace_lab.arc.steps``, …: plain data only). Reading a
record whose payload type is not yet known imports the ``steps`` module of every registered
method package (:data:`ace_lab.plugins.METHOD_PACKAGES`, by import path), so ``eval`` and
``viz`` read every method's payloads without importing a method package themselves.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from ace_lab import plugins

#: Payload class name → class, filled by ``StepPayload.__init_subclass__``.
PAYLOAD_TYPES: dict[str, type[StepPayload]] = {}


@dataclass(frozen=True)
class StepPayload:
    """Base of every step payload. Subclasses are frozen dataclasses of JSON-able fields
    (str, int, float, bool, None, tuples and dicts of those, nested payloads); bump
    ``VERSION`` when a field changes meaning, and old records of that type load as ``None``."""

    VERSION: ClassVar[int] = 1

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        PAYLOAD_TYPES[cls.__name__] = cls

    def line(self) -> str:
        """One human-readable line for the stepper and ``ace-lab ask --trace``."""
        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, tuple | list | dict):
                value = f"{len(value)} items"
            shown.append(f"{f.name}={value}")
        return f"{type(self).__name__}: " + ", ".join(shown)

    def details(self) -> tuple[str, ...]:
        """Further lines ``ace-lab ask --trace`` prints under :meth:`line` (none by default;
        a payload whose line summarises several things, e.g. Cypher attempts, lists them)."""
        return ()


def _plain(value: Any) -> Any:
    if isinstance(value, StepPayload):
        return to_record(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def to_record(payload: StepPayload) -> dict[str, Any]:
    """``payload`` as a JSON-able dict with its type name and version."""
    body = {f.name: _plain(getattr(payload, f.name)) for f in fields(payload)}
    return {"type": type(payload).__name__, "v": payload.VERSION, **body}


def _restore(value: Any) -> Any:
    if isinstance(value, Mapping) and "type" in value and "v" in value:
        return from_record(value)
    if isinstance(value, list):
        return tuple(_restore(v) for v in value)
    if isinstance(value, Mapping):
        return {k: _restore(v) for k, v in value.items()}
    return value


def from_record(data: Mapping[str, Any] | None) -> StepPayload | None:
    """The payload ``data`` stores; None for no payload, an unknown type or another version."""
    if not isinstance(data, Mapping):
        return None
    cls = payload_type(str(data.get("type")))
    if cls is None or data.get("v") != cls.VERSION:
        return None
    known = {f.name for f in fields(cls)}
    try:
        return cls(**{k: _restore(v) for k, v in data.items() if k in known})
    except TypeError:  # a field missing from the record: not this version's shape
        return None


def payload_type(name: str) -> type[StepPayload] | None:
    """The payload class called ``name``, importing the registered method packages' payload
    modules when it is not known yet; None for a name no package defines."""
    if name not in PAYLOAD_TYPES:
        for package in plugins.METHOD_PACKAGES:
            module = f"{package}.steps"
            if importlib.util.find_spec(module) is not None:
                importlib.import_module(module)
    return PAYLOAD_TYPES.get(name)


def replace(payload: StepPayload, **changes: Any) -> StepPayload:
    """A copy of ``payload`` with ``changes`` (``dataclasses.replace``, re-exported)."""
    return dataclasses.replace(payload, **changes)


# --------------------------------------------------------------------------- generic payloads
@dataclass(frozen=True)
class Retrieval(StepPayload):
    """One context builder call: the query, the mode, what it returned."""

    query: str
    mode: str
    evidence_ids: tuple[str, ...] = ()

    def line(self) -> str:
        return f"retrieved {len(self.evidence_ids)} items ({self.mode}) for {self.query!r}"


@dataclass(frozen=True)
class Generation(StepPayload):
    """The answer call: the parsed answer and the model's raw reply."""

    answer: str
    raw: str | None = None
    prompt_style: str = "task"
    task: str = "qa"

    def line(self) -> str:
        return f"answer: {self.answer}"


@dataclass(frozen=True)
class Selection(StepPayload):
    """Evidence kept and dropped (with the reason) by a pruning or selection stage."""

    kept: tuple[str, ...] = ()
    dropped: tuple[tuple[str, str], ...] = ()

    def line(self) -> str:
        return f"kept {len(self.kept)}, dropped {len(self.dropped)}"


@dataclass(frozen=True)
class StopDecision(StepPayload):
    """Why an iterative method stopped."""

    reason: str
    rounds: int = 0

    def line(self) -> str:
        return f"stopped after {self.rounds} round(s): {self.reason}"


@dataclass(frozen=True)
class Repair(StepPayload):
    """A structured LLM call that needed a retry or fell back to its default."""

    tag: str
    outcome: str  # "retry" (valid on a later attempt) | "fallback" (default used)
    attempt: int = 0
    errors: tuple[str, ...] = ()

    def line(self) -> str:
        return f"{self.tag}: {self.outcome} after {len(self.errors)} failed attempt(s)"


@dataclass(frozen=True)
class AnswerDetails(StepPayload):
    """What a method reports about one answer beyond text, context and trace. The base has
    nothing; a method's subclass names the record columns it owns in :meth:`columns`."""

    def columns(self) -> dict[str, Any]:
        """Record columns this method owns (e.g. ACE's ``policy``/``topology``/``router``)."""
        return {}
