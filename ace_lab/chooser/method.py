"""``auto``: pick a method for the question with a fitted :class:`ChooserModel`, then run it.

The choice reads the question's text only (:func:`question_features`), so it costs no LLM call
and no retrieval. The answer is the chosen method's, under a trace whose first step
(``choose``) records a :class:`~ace_lab.chooser.steps.MethodChoice` and whose other steps are
the chosen method's own; its details (:class:`~ace_lab.chooser.steps.ChosenMethod`) name the
method whose evidence and answer these are.
"""

from __future__ import annotations

from collections.abc import Callable

from ace_lab.chooser.features import question_features
from ace_lab.chooser.model import ChooserModel, lam_label
from ace_lab.chooser.steps import ChosenMethod, MethodChoice
from ace_lab.evidence import Answer, Trace
from ace_lab.methods.base import Method
from ace_lab.methods.generate import Task


class AutoMethod:
    """Answers each question with the method ``model`` picks for it at ``lam``."""

    def __init__(
        self,
        name: str,
        model: ChooserModel,
        build: Callable[[str], Method],
        *,
        lam: float | None = None,
        source: str = "",
    ) -> None:
        self.name = name
        self.model = model
        self.lam = model.lam if lam is None else lam
        self.source = source
        self._build = build
        self._methods: dict[str, Method] = {}

    def choice(self, query: str) -> MethodChoice:
        """What ``auto`` would run for ``query`` (no method runs)."""
        features = question_features(query)
        bucket = self.model.bucket(query)
        return MethodChoice(
            chosen=self.model.choose(bucket, self.lam),
            scores={m: round(s, 6) for m, s in self.model.scores(bucket, self.lam).items()},
            features=features,
            lam=lam_label(self.lam),
            bucket=bucket,
            expected={m: self.model.expected(m, bucket) for m in self.model.methods},
            model=self.source,
        )

    def method(self, name: str) -> Method:
        """The candidate ``name``, built once and reused for later questions."""
        if name not in self._methods:
            self._methods[name] = self._build(name)
        return self._methods[name]

    def answer(self, query: str, task: Task = "qa") -> Answer:
        trace = Trace()
        with trace.step("choose", kind="route", query=query) as step:
            choice = self.choice(query)
            step.record(choice)
        inner = self.method(choice.chosen).answer(query, task)
        trace.steps.extend(inner.trace.steps)
        return Answer(
            inner.text,
            inner.context,
            trace,
            method=self.name,
            raw=inner.raw,
            retrieval_calls=inner.retrieval_calls,
            details=ChosenMethod(choice.chosen, inner.details),
        )
