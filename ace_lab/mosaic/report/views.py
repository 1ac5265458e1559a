"""HTML fragments of MOSAIC's steps for the stepper, one per payload type (:data:`STEP_VIEWS`).

Each view takes a ``Step`` and renders its typed payload; every piece of corpus or model text
is HTML-escaped. A step without the payload its view expects (a trace recorded before steps
carried typed payloads) shows :data:`~ace_lab.mosaic.report.steps.BEFORE_TYPED_STEPS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from html import escape
from typing import Any, TypeVar

from ace_lab.mosaic.report.steps import BEFORE_TYPED_STEPS
from ace_lab.mosaic.steps import (
    EvidenceSelection,
    ExplorationChoice,
    ExplorationStop,
    ScoredPath,
    SeedSelection,
    TraversalDepth,
)
from ace_lab.steps import StepPayload
from ace_lab.trace import Step

P = TypeVar("P", bound=StepPayload)
#: Paths listed per status in a traversal view (the trace keeps the best pruned ones).
PATHS_SHOWN = 8


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A small HTML table; every cell is escaped."""
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _typed(kind: type[P], render: Callable[[P], str]) -> Callable[[Step], str]:
    def view(step: Step) -> str:
        if not isinstance(step.payload, kind):
            return f"<p><i>{escape(BEFORE_TYPED_STEPS)}</i></p>"
        return f"<p>{escape(step.payload.line())}</p>" + render(step.payload)

    view.__doc__ = f"The HTML of a step that recorded a {kind.__name__}."
    return view


def _choice(p: ExplorationChoice) -> str:
    rows = []
    for name, used in p.policy.items():
        given = p.raw.get(name, used)
        rows.append((name, given if name in p.raw and given != used else "", used))
    signals = ", ".join(f"{k}={v}" for k, v in p.signals.items()) or "none (fixed policy)"
    notes = "; ".join(p.adjustments) or "none"
    return (
        f"<p>signals: {escape(signals)}</p>"
        + table(["control", "raw (where changed)", "used"], rows)
        + f"<p>adjustments: {escape(notes)}</p>"
    )


def _seeds(p: SeedSelection) -> str:
    rows = [
        (s.node, s.view, f"{s.score:.3f}", f"{s.entity:.3f}", f"{s.relation:.3f}") for s in p.seeds
    ]
    return table(["seed", "view", "score", "entity", "relation"], rows)


def _paths(title: str, paths: Sequence[ScoredPath]) -> str:
    rows = [(f"{p.score:.3f}", p.view, p.walk()) for p in paths[:PATHS_SHOWN]]
    return f"<p>{escape(title)}</p>" + table(["score", "view", "walk"], rows)


def _depth(p: TraversalDepth) -> str:
    return _paths(f"kept ({len(p.kept)})", p.kept) + _paths(
        f"best pruned ({len(p.pruned)} of {p.pruned_count})", p.pruned
    )


def _stop(p: ExplorationStop) -> str:
    rows = [(c.get("depth"), c.get("gain"), c.get("completeness")) for c in p.curve]
    return table(["depth", "gain", "completeness"], rows)


def _selection(p: EvidenceSelection) -> str:
    kept = [(i, p.roles.get(i, "")) for i in p.kept]
    dropped = [(i, why) for i, why in p.dropped]
    return (
        table(["kept", "role"], kept)
        + table(["dropped", "why"], dropped)
        + f"<p>source passages: {escape(', '.join(p.passages) or 'none')}</p>"
    )


#: Payload type → the HTML of a step that recorded it (the stepper's MOSAIC views).
STEP_VIEWS: dict[type[StepPayload], Callable[[Step], str]] = {
    ExplorationChoice: _typed(ExplorationChoice, _choice),
    SeedSelection: _typed(SeedSelection, _seeds),
    TraversalDepth: _typed(TraversalDepth, _depth),
    ExplorationStop: _typed(ExplorationStop, _stop),
    EvidenceSelection: _typed(EvidenceSelection, _selection),
}
