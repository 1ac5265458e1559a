"""The types every method speaks: Evidence, Context, Trace (Steps, LLMCalls) and Answer.

Visualisation and evaluation read these, never method internals. A ``Trace`` is made current
with ``with trace.activate():``; LLM calls made inside (also from worker threads started by
``ace_lab.llm.LLM.map``) attach themselves to the innermost open ``Step``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from threading import Lock
from typing import Any, Literal

from ace_lab.tokens import count_tokens

EvidenceKind = Literal[
    "entity", "relation", "passage", "community", "report", "summary", "path", "row"
]
EVIDENCE_KINDS: tuple[str, ...] = EvidenceKind.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Evidence:
    """One retrievable unit with its provenance.

    ``level`` 0 is the finest (passages, base entities); higher levels are more abstract
    (summary entities, community reports). ``source_ids`` are the chunk ids it came from.
    """

    id: str
    kind: str
    text: str
    level: int = 0
    source_ids: tuple[str, ...] = ()
    branch: str = "base"
    round: int = 0
    score: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.kind not in EVIDENCE_KINDS:
            raise ValueError(f"Evidence.kind must be one of {EVIDENCE_KINDS}, got {self.kind!r}")

    @property
    def tokens(self) -> int:
        return count_tokens(self.text)


def _header(item: Evidence) -> str:
    """``### round R · branch (goal G, mode M) · kind``: the block an item belongs to."""
    extra = ", ".join(f"{key} {item.meta[key]}" for key in ("goal", "mode") if item.meta.get(key))
    branch = f"{item.branch} ({extra})" if extra else item.branch
    return f"### round {item.round} · {branch} · {item.kind}"


@dataclass
class Context:
    """Ordered evidence; ``render`` linearises it under (round / branch / kind) headers."""

    evidence: list[Evidence] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.evidence)

    def __iter__(self) -> Iterator[Evidence]:
        return iter(self.evidence)

    @property
    def tokens(self) -> int:
        return count_tokens(self.render())

    def fit(self, budget_tokens: int | None) -> tuple[list[Evidence], list[Evidence]]:
        """Split into (kept, dropped): items are kept in order while they fit the budget.

        Headers count against the budget. An item that does not fit is dropped, and later,
        smaller items may still be kept, so the budget is used fully without reordering.
        """
        if budget_tokens is None:
            return list(self.evidence), []
        kept: list[Evidence] = []
        dropped: list[Evidence] = []
        used = 0
        last_header: str | None = None
        for item in self.evidence:
            header = _header(item)
            cost = item.tokens + (count_tokens(header) if header != last_header else 0)
            if used + cost <= budget_tokens:
                kept.append(item)
                used += cost
                last_header = header
            else:
                dropped.append(item)
        return kept, dropped

    def render(self, budget_tokens: int | None = None) -> str:
        kept, _ = self.fit(budget_tokens)
        lines: list[str] = []
        last_header: str | None = None
        for item in kept:
            header = _header(item)
            if header != last_header:
                if lines:
                    lines.append("")
                lines.append(header)
                last_header = header
            lines.append(f"- {item.text}")
        return "\n".join(lines)


@dataclass(frozen=True)
class LLMCall:
    """One chat completion as seen by the caller (a cache hit costs no tokens)."""

    tag: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cache_hit: bool
    attempt: int = 1
    error: str | None = None
    #: What producing the response cost the model, also for a cache hit (cold-cache cost).
    response_prompt_tokens: int = 0
    response_completion_tokens: int = 0
    response_latency_s: float | None = None  # the model time, also for a hit (None: unknown)
    server_cached_tokens: int = 0  # prompt tokens the server reused from its KV cache


@dataclass
class Step:
    """A named stage of a method: what went in, what came out, the LLM calls it made."""

    name: str
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    llm_calls: list[LLMCall] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    started: float = 0.0  # time.perf_counter() at entry; steps may overlap (parallel branches)
    elapsed: float = 0.0

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.llm_calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.llm_calls)


_CURRENT_TRACE: ContextVar[Trace | None] = ContextVar("ace_lab_trace", default=None)
_CURRENT_STEP: ContextVar[Step | None] = ContextVar("ace_lab_step", default=None)


def current_trace() -> Trace | None:
    return _CURRENT_TRACE.get()


def current_step() -> Step | None:
    """The innermost open step of the current trace (None outside ``Trace.step``)."""
    return _CURRENT_STEP.get()


class Trace:
    """Every step a method took. Thread-safe for LLM calls recorded from worker threads."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self._lock = Lock()

    @contextmanager
    def activate(self) -> Iterator[Trace]:
        token = _CURRENT_TRACE.set(self)
        try:
            yield self
        finally:
            _CURRENT_TRACE.reset(token)

    @contextmanager
    def step(self, name: str, **inputs: Any) -> Iterator[Step]:
        """Open a step, make this trace current, time it; LLM calls inside attach to it."""
        step = Step(name=name, inputs=dict(inputs))
        with self._lock:
            self.steps.append(step)
        trace_token = _CURRENT_TRACE.set(self)
        step_token = _CURRENT_STEP.set(step)
        step.started = time.perf_counter()
        try:
            yield step
        finally:
            step.elapsed = time.perf_counter() - step.started
            _CURRENT_STEP.reset(step_token)
            _CURRENT_TRACE.reset(trace_token)

    def record(self, call: LLMCall) -> None:
        step = _CURRENT_STEP.get()
        with self._lock:
            if step is None or step not in self.steps:
                step = Step(name="(unattributed)")
                self.steps.append(step)
            step.llm_calls.append(call)

    @property
    def llm_calls(self) -> list[LLMCall]:
        return [c for s in self.steps for c in s.llm_calls]

    @property
    def wall_s(self) -> float:
        """First step start to last step end (overlapping steps are not double-counted)."""
        timed = [s for s in self.steps if s.started]
        if not timed:
            return 0.0
        return max(s.started + s.elapsed for s in timed) - min(s.started for s in timed)

    def summary(self) -> dict[str, float | int]:
        calls = self.llm_calls
        return {
            "steps": len(self.steps),
            "llm_calls": len(calls),
            "model_calls": sum(not c.cache_hit for c in calls),
            "cache_hits": sum(c.cache_hit for c in calls),
            "prompt_tokens": sum(c.prompt_tokens for c in calls),
            "completion_tokens": sum(c.completion_tokens for c in calls),
            "response_prompt_tokens": sum(c.response_prompt_tokens for c in calls),
            "response_completion_tokens": sum(c.response_completion_tokens for c in calls),
            "server_cached_tokens": sum(c.server_cached_tokens for c in calls),
            "llm_latency_s": round(sum(c.latency_s for c in calls), 4),
            "wall_s": round(self.wall_s, 4),
        }

    def to_dict(self) -> list[dict[str, Any]]:
        return [asdict(s) for s in self.steps]

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), default=str, ensure_ascii=False)


def record_llm_call(call: LLMCall) -> None:
    """Attach ``call`` to the current trace, if any (called by ``ace_lab.llm``)."""
    trace = _CURRENT_TRACE.get()
    if trace is not None:
        trace.record(call)


@dataclass
class Answer:
    """What a method returns: the answer text, the context it was built from, and how."""

    text: str
    context: Context
    trace: Trace
    meta: dict[str, Any] = field(default_factory=dict)
