"""The typed payloads of a MOSAIC trace, found by type (never by step name)."""

from __future__ import annotations

from typing import TypeVar

from ace_lab.steps import StepPayload
from ace_lab.trace import Trace

P = TypeVar("P", bound=StepPayload)

#: What a view shows for a trace recorded before steps carried typed payloads.
BEFORE_TYPED_STEPS = "(trace recorded before typed steps)"


def payloads(trace: Trace, kind: type[P]) -> list[P]:
    """Every payload of type ``kind`` in ``trace``, in step order."""
    return [s.payload for s in trace.steps if isinstance(s.payload, kind)]


def payload(trace: Trace, kind: type[P]) -> P | None:
    """The first payload of type ``kind`` in ``trace`` (None when no step recorded one)."""
    found = payloads(trace, kind)
    return found[0] if found else None
