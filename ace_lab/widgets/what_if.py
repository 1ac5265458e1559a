"""What if one question were answered under another setting: the explorer's engine, no widgets.

A setting is a registry name (each method plugin's ``knobs``); :class:`WhatIf` answers the question
with :func:`ace_lab.registry.make_method` on the graph family the name reads, cache-first:

1. :meth:`WhatIf.probe` runs the method once against the response cache and the archives only
   (a client that refuses every request, keyed like the real model). When nothing was refused
   the probe's answer *is* the answer, at no model cost;
2. otherwise the probe says how many requests missed (a lower bound: later requests depend on
   the answers to earlier ones) and the seconds the method is expected to take on a cold cache
   (its recorded calls and tokens per question times the endpoint's measured speed,
   ``ace_lab.eval.studies``), before :meth:`WhatIf.run` sends anything to the model.

Each :class:`Outcome` holds the answer, its F1/EM against the gold answers, its tokens, calls
and time; :func:`compare` says which evidence items were added and removed against the previous
setting and how the context text changed (a unified diff).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from ace_lab.config import Settings, load_settings
from ace_lab.data.records import Question
from ace_lab.eval.metrics.answers import exact_match, f1_score
from ace_lab.eval.studies.estimate import recorded_cost
from ace_lab.eval.studies.throughput import throughput
from ace_lab.evidence import Answer, Evidence
from ace_lab.llm import LLM
from ace_lab.llm.replay import RefusingClient, replaying
from ace_lab.registry import graph_family, head_of, make_method, spec
from ace_lab.retrieval import RetrievalGraph

#: Tokens assumed per missing call when no study has run the method (an estimate's last resort).
ASSUMED_CALL_TOKENS = (1200, 40)
#: Lines of the context diff shown at most.
DIFF_LINES = 80


@dataclass(frozen=True)
class Probe:
    """What the response cache holds for one setting: all of it (``answer`` is then the
    answer), or ``missing`` requests and the seconds the method is expected to take."""

    name: str
    missing: int
    expected_s: float | None = None
    source: str = ""
    answer: Answer | None = None

    @property
    def cached(self) -> bool:
        return self.missing == 0 and self.answer is not None

    def line(self) -> str:
        if self.cached:
            return f"{self.name}: every LLM call is in the response cache"
        expected = f"≈ {self.expected_s:.0f} s" if self.expected_s is not None else "unknown time"
        return (
            f"{self.name}: not in the response cache ({self.missing}+ model calls), "
            f"expected {expected} ({self.source})"
        )


@dataclass(frozen=True)
class Outcome:
    """One setting's answer with its score and cost."""

    name: str
    answer: Answer
    gold: tuple[str, ...] = ()
    cost: dict[str, float] = field(default_factory=dict)

    @property
    def f1(self) -> float | None:
        return f1_score(self.answer.text, self.gold) if self.gold else None

    @property
    def em(self) -> float | None:
        return exact_match(self.answer.text, self.gold) if self.gold else None

    @property
    def evidence(self) -> list[Evidence]:
        """The items of the context the answer was composed from."""
        return list(self.answer.context)

    def score_line(self) -> str:
        if self.f1 is None or self.em is None:
            return "no gold answer"
        return f"F1 {self.f1:.2f} · EM {self.em:.0f}"

    def cost_line(self) -> str:
        c = self.cost
        return (
            f"{c['input_tokens']:.0f} input / {c['output_tokens']:.0f} output tokens · "
            f"{c['llm_calls']:.0f} LLM calls ({c['cache_hits']:.0f} cached) · "
            f"{c['seconds']:.2f} s"
        )

    def line(self) -> str:
        return f"{self.name}: {self.answer.text!r} · {self.score_line()} · {self.cost_line()}"


@dataclass(frozen=True)
class Change:
    """What one setting's context holds against the previous setting's."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    diff: tuple[str, ...] = ()  # unified diff of the rendered contexts, at most DIFF_LINES

    def line(self) -> str:
        return f"+{len(self.added)} added, -{len(self.removed)} removed, {len(self.kept)} kept"


def cost_of(answer: Answer) -> dict[str, float]:
    """Tokens (as the model counted them, cached calls included), calls and wall seconds."""
    s = answer.trace.summary()
    return {
        "input_tokens": float(s["response_prompt_tokens"]),
        "output_tokens": float(s["response_completion_tokens"]),
        "llm_calls": float(s["llm_calls"]),
        "cache_hits": float(s["cache_hits"]),
        "model_calls": float(s["model_calls"]),
        "seconds": float(s["wall_s"]),
    }


def compare(previous: Outcome | None, current: Outcome) -> Change:
    """Evidence ids added, removed and kept against ``previous`` and the context diff."""
    now = [e.id for e in current.evidence]
    if previous is None:
        return Change(added=tuple(now))
    before = [e.id for e in previous.evidence]
    old, new = previous.answer.context.render(), current.answer.context.render()
    diff = difflib.unified_diff(
        old.splitlines(), new.splitlines(), previous.name, current.name, lineterm="", n=0
    )
    return Change(
        added=tuple(i for i in now if i not in before),
        removed=tuple(i for i in before if i not in now),
        kept=tuple(i for i in now if i in before),
        diff=tuple(diff)[:DIFF_LINES],
    )


@lru_cache(maxsize=256)
def _recorded(name: str, dataset: str, results_dir: str) -> dict[str, Any] | None:
    """The mean recorded cost per question of ``name``, else of its head (a registered
    configuration of the same method), from the committed studies."""
    settings = replace(load_settings(), results_dir=Path(results_dir))
    for candidate in dict.fromkeys((name, spec(name).name, head_of(name))):
        cost = recorded_cost(candidate, dataset, settings)
        if cost is not None:
            return cost | {"method": candidate}
    return None


def expected_seconds(
    name: str, missing: int, dataset: str, settings: Settings, llm: LLM | None = None
) -> tuple[float, str]:
    """Seconds ``name`` is expected to take on one question with a cold cache, and where the
    numbers come from (recorded cost per question, else ``missing`` calls of assumed size)."""
    speed = throughput(settings, allow_probe=False, llm=llm)
    cost = _recorded(name, dataset, str(settings.results_dir))
    if cost is not None:
        seconds = speed.seconds(cost["calls"], cost["input"], cost["output"])
        source = f"{cost['calls']:.0f} calls recorded for {cost['method']} in {cost['from']}"
    else:
        tokens_in, tokens_out = ASSUMED_CALL_TOKENS
        seconds = speed.seconds(missing, missing * tokens_in, missing * tokens_out)
        source = f"no study ran {name}: {missing} calls of assumed size"
    return seconds, f"{source}; speed {speed.source.split(' (')[0]}"


def _offline(llm: LLM) -> tuple[LLM, RefusingClient]:
    """An LLM with ``llm``'s cache, archives and model identity (so the same request keys)
    whose client refuses every request the cache and archives do not hold, and that client."""
    refusing = RefusingClient()
    probe = LLM(llm.settings, client=refusing, cache=llm.cache, model_identity=llm.model_identity)
    probe.archives = list(llm.archives)
    return probe, refusing


class WhatIf:
    """One question answered under any setting (a registry name), cache-first.

    ``graphs`` gives the graph of a family (``hierarchical``, ``typed``, ``openie``); it is
    called once per family. ``responses``: an archive replayed after the cache (and, with
    ``record``, rewritten with every response used, as the notebooks record theirs).
    """

    def __init__(
        self,
        question: Question,
        graphs: Callable[[str], RetrievalGraph],
        llm: LLM,
        *,
        dataset: str = "",
        responses: str | Path = "",
        record: bool = False,
    ) -> None:
        self.question, self.llm, self.dataset = question, llm, dataset
        self.responses, self.record = str(responses or ""), record
        self._load, self._graphs = graphs, {}
        self.history: list[Outcome] = []

    def graph(self, name: str) -> RetrievalGraph:
        """The graph method ``name`` reads (loaded once per family)."""
        family = graph_family(name)
        if family not in self._graphs:
            self._graphs[family] = self._load(family)
        return self._graphs[family]

    def _answer(self, name: str, llm: LLM) -> Answer:
        return make_method(name, self.graph(name), llm).answer(self.question.question)

    def probe(self, name: str) -> Probe:
        """Answer ``name`` from the cache and archives alone, or say what is missing."""
        with replaying(self.llm, self.responses, update=False):
            offline, refusing = _offline(self.llm)
            try:
                answer: Answer | None = self._answer(name, offline)
            except Exception:  # a refused request the method did not recover from
                answer = None
        missing = len(refusing.refused)
        if missing == 0 and answer is not None:
            return Probe(name, 0, answer=answer)
        missing = max(missing, 1)
        seconds, source = expected_seconds(name, missing, self.dataset, self.llm.settings, self.llm)
        return Probe(name, missing, seconds, source)

    def run(self, name: str, probe: Probe | None = None) -> Outcome:
        """The answer under ``name`` (the probe's when it was all cached, else the model's)."""
        if probe is not None and probe.cached and probe.answer is not None:
            answer = probe.answer
        else:
            with replaying(self.llm, self.responses, update=self.record):
                answer = self._answer(name, self.llm)
        outcome = Outcome(name, answer, tuple(self.question.answers), cost_of(answer))
        self.history.append(outcome)
        return outcome

    @property
    def previous(self) -> Outcome | None:
        """The last setting answered before the current one."""
        return self.history[-2] if len(self.history) > 1 else None

    def ask(self, name: str) -> tuple[Probe, Outcome, Change]:
        """Probe, answer and compare with the previous setting, in one call."""
        probe = self.probe(name)
        outcome = self.run(name, probe)
        return probe, outcome, compare(self.previous, outcome)

    def walk(self, names: Sequence[str], show: Callable[[str], None] = print) -> list[Outcome]:
        """Answer every setting in turn, printing each probe, answer and change (the explorer
        without widgets, as under papermill)."""
        outcomes = []
        for name in names:
            probe, outcome, change = self.ask(name)
            show(f"\n=== {name}\n{probe.line()}\n{outcome.line()}\nvs previous: {change.line()}")
            for item in change.diff:
                show(f"    {item}")
            outcomes.append(outcome)
        return outcomes
