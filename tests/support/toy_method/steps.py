"""The toy method's one payload: which passages it picked for the query."""

from __future__ import annotations

from dataclasses import dataclass

from ace_lab.steps import StepPayload


@dataclass(frozen=True)
class ToyPick(StepPayload):
    query: str
    picked: tuple[str, ...] = ()

    def line(self) -> str:
        return f"picked {len(self.picked)} passage(s) for {self.query!r}"
