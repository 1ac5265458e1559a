"""What a method did: a ``Trace`` of ``Step``s, each with its LLM calls, queries and evidence.

The trace is the only thing visualisation and evaluation read. Every step records what it added
to the method's working evidence set and what it removed (with the reason), so the stepper, the
evidence views, coverage / recovery and the cost tables work for every method that records its
steps, without knowing the method.

A ``Trace`` is made current with ``with trace.activate():``; LLM calls made inside (also from
worker threads started by ``ace_lab.llm.LLM.map``) attach themselves to the innermost open
``Step``.

A composed method's source may run a pipeline of its own for one of the caller's branches
(MOSAIC's exploration at the Depth policy): those stages are *branch steps*, recorded in a trace
of their own and adopted by the caller's (:meth:`Trace.adopt`) under the name
``<branch>/<stage>`` (``depth/traverse:2``). They are shown and costed like any step, but their
evidence is the branch pipeline's own working set: the caller's step for that branch
(``retrieve:depth``) carries what the branch returned, so the caller's evidence replay
(:meth:`Trace.working_set`, :meth:`Trace.removed`, :meth:`Trace.first_retrieval`) and a
method report's reading of its own decisions (:attr:`Trace.own_steps`) leave them out.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field, replace
from threading import Lock
from typing import TYPE_CHECKING, Any

from ace_lab.steps import Repair, StepPayload, to_record

if TYPE_CHECKING:
    from ace_lab.evidence import Evidence

#: What a step does. A step's kind defaults to the part of its name before ":" when that is
#: one of these ("retrieve:depth" → retrieve), else "other".
STEP_KINDS: tuple[str, ...] = (
    "retrieve", "route", "policy", "plan", "merge", "adapt", "generate", "cypher", "explore",
    "schema", "witness", "judge", "seed", "traverse", "stop", "select", "other",
)  # fmt: skip


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


def cold_seconds(wall_s: float, calls: Iterable[LLMCall]) -> float | None:
    """The wall time with an empty cache: each cached call's recorded model time replaces its
    lookup time. None when a cached call's model time was not recorded (responses cached
    before latencies were kept). The LLM calls of one answer run one after another (parallel
    retrieval branches make none), so the substitution adds up."""
    extra = 0.0
    for call in calls:
        if call.cache_hit:
            if call.response_latency_s is None:
                return None
            extra += call.response_latency_s - call.latency_s
    return round(wall_s + extra, 4)


@dataclass
class Step:
    """A named stage of a method: what went in and came out, the LLM calls and queries it made,
    and the evidence it added to (``added``) or removed from (``removed``, with the reason) the
    method's working set. ``notes`` are one-line, human-readable findings for the stepper."""

    name: str
    kind: str = "other"
    inputs: dict[str, Any] = field(default_factory=dict)
    #: What the stage decided, typed (``ace_lab.steps``); views dispatch on its type.
    payload: StepPayload | None = None
    #: Structured LLM calls in this step that needed a retry or fell back to their default.
    repairs: list[Repair] = field(default_factory=list)
    llm_calls: list[LLMCall] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    added: list[Evidence] = field(default_factory=list)
    removed: list[tuple[Evidence, str]] = field(default_factory=list)
    started: float = 0.0  # time.perf_counter() at entry; steps may overlap (parallel branches)
    elapsed: float = 0.0

    def add(self, items: Iterable[Evidence]) -> None:
        self.added.extend(items)

    def record(self, payload: StepPayload) -> None:
        """Set what this stage decided (one payload per step; a later call replaces it)."""
        self.payload = payload

    def remove(self, items: Iterable[tuple[Evidence, str]]) -> None:
        self.removed.extend(items)

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.llm_calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.llm_calls)

    @property
    def cold_s(self) -> float | None:
        """This step's seconds with an empty response cache (see :func:`cold_seconds`)."""
        return cold_seconds(self.elapsed, self.llm_calls)


#: Step kinds that bring new evidence in from the graph (as opposed to merging, pruning or
#: re-ordering what is already there).
RETRIEVAL_KINDS = ("retrieve", "cypher", "seed", "traverse")


#: Separates a branch step's branch from its stage's own name (``depth/traverse:2``).
BRANCH_SEPARATOR = "/"


def branch_step_name(branch: str, name: str) -> str:
    """The name a stage ``name`` a source ran for ``branch`` takes in the caller's trace."""
    return f"{branch}{BRANCH_SEPARATOR}{name}"


def step_branch(name: str) -> str:
    """The branch a step named ``name`` was taken for ("" for the method's own step)."""
    branch, separator, _ = name.partition(BRANCH_SEPARATOR)
    return branch if separator else ""


def step_kind(name: str) -> str:
    """The kind a step name implies: the part before ":" of its stage (a branch step's too:
    ``depth/traverse:2`` → traverse) when that is one of :data:`STEP_KINDS`, else "other"."""
    stage = name.partition(BRANCH_SEPARATOR)[2] if step_branch(name) else name
    head = stage.split(":", 1)[0]
    return head if head in STEP_KINDS else "other"


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
    def step(self, name: str, *, kind: str | None = None, **inputs: Any) -> Iterator[Step]:
        """Open a step, make this trace current, time it; LLM calls inside attach to it."""
        kind = kind or step_kind(name)
        if kind not in STEP_KINDS:
            raise ValueError(f"unknown step kind {kind!r}; use one of {STEP_KINDS}")
        step = Step(name=name, kind=kind, inputs=dict(inputs))
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

    def find(self, name: str) -> Step | None:
        """The first step called ``name`` (None if the method took no such step)."""
        return next((s for s in self.steps if s.name == name), None)

    def adopt(self, steps: Iterable[Step], branch: str) -> None:
        """Append ``steps`` (a trace a source recorded for ``branch`` of this one) as branch
        steps named ``<branch>/<name>``, each keeping its kind, payload, calls, evidence and
        timing (see the module docstring)."""
        adopted = [replace(s, name=branch_step_name(branch, s.name)) for s in steps]
        with self._lock:
            self.steps.extend(adopted)

    @property
    def own_steps(self) -> list[Step]:
        """The method's own steps: every step but the branch steps it adopted."""
        return [s for s in self.steps if not step_branch(s.name)]

    # ----------------------------------------------------------------------- evidence
    def working_set(self, upto: int | None = None) -> list[Evidence]:
        """The evidence after replaying the method's own steps among ``[0, upto)`` (a branch
        step's evidence is its branch pipeline's): each step's ``added`` items join (a later
        item with the same id replaces the earlier one in place, so a merge step can re-label
        what it consolidates) and its ``removed`` items leave."""
        current: dict[str, Evidence] = {}
        for step in self.steps[:upto]:
            if step_branch(step.name):
                continue
            for item in step.added:
                current[item.id] = item
            for item, _ in step.removed:
                current.pop(item.id, None)
        return list(current.values())

    def all_evidence(self) -> list[Evidence]:
        """Every item one of the method's own steps added, once each (its latest version), in
        first-seen order."""
        seen: dict[str, Evidence] = {}
        for step in self.own_steps:
            for item in step.added:
                seen[item.id] = item
        return list(seen.values())

    def removed(self) -> dict[str, str]:
        """Id → reason of every item one of the method's own steps removed (the last reason
        given wins)."""
        return {item.id: why for step in self.own_steps for item, why in step.removed}

    def first_retrieval(self) -> list[Evidence] | None:
        """What the method's first retrieval step found (None when it retrieved nothing)."""
        first = next((s for s in self.own_steps if s.kind in RETRIEVAL_KINDS), None)
        return None if first is None else list(first.added)

    @property
    def refined(self) -> bool:
        """Whether a retrieval step after the first one added evidence (a branch, a second
        round, a follow-up pass): only then is "did the first retrieval hold the answer" a
        question distinct from "did the final context"."""
        retrievals = [s for s in self.own_steps if s.kind in RETRIEVAL_KINDS]
        return any(s.added for s in retrievals[1:])

    # ----------------------------------------------------------------------- costs
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

    @property
    def cold_wall_s(self) -> float | None:
        """The answer's wall time with an empty response cache (see :func:`cold_seconds`)."""
        return cold_seconds(round(self.wall_s, 4), self.llm_calls)

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
        out = []
        for s in self.steps:
            row = asdict(s)
            row["payload"] = None if s.payload is None else to_record(s.payload)
            row["repairs"] = [to_record(r) for r in s.repairs]
            out.append(row)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), default=str, ensure_ascii=False)


def record_llm_call(call: LLMCall) -> None:
    """Attach ``call`` to the current trace, if any (called by ``ace_lab.llm``)."""
    trace = _CURRENT_TRACE.get()
    if trace is not None:
        trace.record(call)


def calls_sent(traces: Iterable[Trace]) -> str:
    """``"N LLM calls, M sent to the model"`` over ``traces``: what a block of answers cost
    beyond the response cache and a replayed archive (a fresh clone's default notebook run
    should send none)."""
    summaries = [t.summary() for t in traces]
    calls, sent = (sum(s[key] for s in summaries) for key in ("llm_calls", "model_calls"))
    return f"{calls} LLM calls, {sent} sent to the model"
