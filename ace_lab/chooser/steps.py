"""Step payloads of ``auto``, the per-question method chooser (plain data).

An ``auto`` trace is ``choose`` (:class:`MethodChoice`: the question's features, each
candidate's expected accuracy and tokens, its utility at ``λ``, the method picked) followed by
the chosen method's own steps. :class:`ChosenMethod` is what the answer reports: the record
column ``chosen_method`` (the method whose evidence and answer these are) and that method's
own columns and details.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ace_lab.steps import AnswerDetails, StepPayload


@dataclass(frozen=True)
class MethodChoice(StepPayload):
    """Which method ``auto`` ran for one question, and why."""

    chosen: str
    scores: dict[str, float]  # method → expected accuracy − λ · expected input tokens
    features: dict[str, Any]  # what the question was judged by (its form and counts)
    lam: str  # λ per million input tokens ("inf": the cheapest method)
    bucket: str = ""  # the bucket the model read (the form, or "*")
    expected: dict[str, tuple[float, float]] = field(default_factory=dict)  # (accuracy, tokens)
    model: str = ""  # where the fitted model came from (its file and slices)

    def line(self) -> str:
        acc, tok = self.expected.get(self.chosen, (float("nan"), float("nan")))
        return (
            f"chose {self.chosen} for a {self.bucket or 'any'} question at λ={self.lam}/M tokens"
            f" (expected accuracy {acc:.2f}, {tok:.0f} input tokens; {len(self.scores)} candidates)"
        )


@dataclass(frozen=True)
class ChosenMethod(AnswerDetails):
    """The method ``auto`` ran, with that method's own details."""

    chosen: str
    inner: AnswerDetails | None = None

    def columns(self) -> dict[str, Any]:
        inner = self.inner.columns() if self.inner is not None else {}
        return {"chosen_method": self.chosen, **inner}
