"""The typed payloads of a MOSAIC trace, found by type (never by step name), and the depth
each traversal step belongs to (``STEP_GROUPS``: the stepper steps per depth).

Only the trace's own steps count (:attr:`~ace_lab.trace.Trace.own_steps`): in a composition
(``mosaic>ace-full``) MOSAIC's explorations for ACE's branches are branch steps
(``depth/policy``, ``depth/traverse:1``, …), shown by the stepper but not MOSAIC's decision
for the question, which its C_base exploration made once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ace_lab.mosaic.steps import TraversalDepth
from ace_lab.steps import StepPayload
from ace_lab.trace import Trace

P = TypeVar("P", bound=StepPayload)

#: What a view shows for a trace recorded before steps carried typed payloads.
BEFORE_TYPED_STEPS = "(trace recorded before typed steps)"


def payloads(trace: Trace, kind: type[P]) -> list[P]:
    """Every payload of type ``kind`` of ``trace``'s own steps, in step order."""
    return [s.payload for s in trace.own_steps if isinstance(s.payload, kind)]


def payload(trace: Trace, kind: type[P]) -> P | None:
    """The first payload of type ``kind`` in ``trace`` (None when no step recorded one)."""
    found = payloads(trace, kind)
    return found[0] if found else None


def depth_group(payload: StepPayload) -> str:
    """The depth of the beam search a traversal step explored."""
    return f"depth {payload.depth}" if isinstance(payload, TraversalDepth) else ""


#: Payload type → the stepper's group of a step that recorded it (per depth).
STEP_GROUPS: dict[type[StepPayload], Callable[[StepPayload], str]] = {TraversalDepth: depth_group}
