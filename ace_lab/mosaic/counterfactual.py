"""MOSAIC's diagnostic counterfactuals (paper §7.5): one question's policy with ONE control
flipped, replayed through the same pipeline.

The policy a question got is on its record (the analyzer's reply is not needed again), and
every stage after the analyzer — seeds, traversal, stopping, selection — is deterministic and
makes no model call, so the evidence under each flip is recomputed exactly; only the answer
under a flip needs the shared generator (optional, cache first). The paper's caveat holds:
controls are coupled, so one flip at a time is a diagnostic, not an additive decomposition.

:data:`FLIPS` are the flips (ours: the paper names the controls, not the step sizes):
connectors on/off, the depth cap ``D_q`` ±1, the seed count ±3, the evidence budget ±4, the
stopping threshold one setting deeper or shallower, and the answer cardinality single/list
(the paper's strongest single count). A flip that validation would undo (a bound already
reached) does not apply to that question. :class:`Replayer` runs a policy over one graph.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from ace_lab.evidence import Context, Evidence, Trace
from ace_lab.llm import LLM
from ace_lab.methods.generate import Task, generate
from ace_lab.mosaic.method import Mosaic, MosaicConfig
from ace_lab.mosaic.policy import STOP_THRESHOLDS, ExplorationPolicy
from ace_lab.mosaic.view import GraphView
from ace_lab.retrieval import RetrievalGraph

#: The stopping settings from shallowest to deepest.
STOP_ORDER = tuple(STOP_THRESHOLDS)


@dataclass(frozen=True)
class Flip:
    """One control changed: ``name`` (a table row), the policy field, and its new value."""

    name: str
    control: str
    value: Callable[[ExplorationPolicy], Any]

    def apply(self, policy: ExplorationPolicy) -> ExplorationPolicy | None:
        """``policy`` with this control flipped and validated; None when validation gives the
        same policy back (the control is already at its bound)."""
        changed, _ = ExplorationPolicy.clamp({**policy.to_dict(), self.control: self.value(policy)})
        return None if changed == policy else changed


def _add(control: str, delta: int) -> Callable[[ExplorationPolicy], Any]:
    return lambda policy: getattr(policy, control) + delta


def _stop(step: int) -> Callable[[ExplorationPolicy], Any]:
    def value(policy: ExplorationPolicy) -> str:
        at = STOP_ORDER.index(policy.stop_threshold) + step
        return STOP_ORDER[min(max(at, 0), len(STOP_ORDER) - 1)]

    return value


FLIPS: tuple[Flip, ...] = (
    Flip("connectors on/off", "connectors", lambda p: not p.connectors),
    Flip("depth cap +1", "max_depth", _add("max_depth", 1)),
    Flip("depth cap -1", "max_depth", _add("max_depth", -1)),
    Flip("seeds +3", "seed_count", _add("seed_count", 3)),
    Flip("seeds -3", "seed_count", _add("seed_count", -3)),
    Flip("evidence budget +4", "evidence_budget", _add("evidence_budget", 4)),
    Flip("evidence budget -4", "evidence_budget", _add("evidence_budget", -4)),
    Flip("stopping deeper", "stop_threshold", _stop(1)),
    Flip("stopping shallower", "stop_threshold", _stop(-1)),
    Flip(
        "cardinality single/list",
        "cardinality",
        lambda p: "single" if p.cardinality == "list" else "list",
    ),
)


@dataclass(frozen=True)
class Replay:
    """What one policy retrieved for a question: its final context, in order."""

    flip: str  # "" for the recorded policy
    control: str
    label: str
    evidence: tuple[Evidence, ...]

    @property
    def evidence_ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in self.evidence)

    @property
    def passage_ids(self) -> tuple[str, ...]:
        """The rendered passages' ids (what passage recall counts)."""
        return tuple(e.id for e in self.evidence if e.kind == "passage")

    @property
    def source_ids(self) -> tuple[str, ...]:
        """Every item's source passages (what provenance recall counts)."""
        return tuple(s for e in self.evidence for s in e.source_ids)

    @property
    def context_tokens(self) -> int:
        return Context(list(self.evidence)).tokens


class Replayer:
    """MOSAIC's retrieval (and optionally its answer) over one graph at any fixed policy.

    ``llm`` is needed only for answers; retrieval at a fixed policy never calls the model.
    """

    def __init__(
        self,
        graph: RetrievalGraph,
        llm: LLM | None = None,
        config: MosaicConfig | None = None,
    ) -> None:
        self.graph = graph
        self.llm = llm
        self.config = config or MosaicConfig()
        self.view = GraphView(graph)  # one view (and fact cache) for every policy

    def replay(
        self, query: str, policy: ExplorationPolicy, flip: Flip | None = None
    ) -> Replay | None:
        """MOSAIC's final context for ``query`` under ``policy`` flipped by ``flip`` (no model
        call); None when the flip does not apply."""
        used = policy if flip is None else flip.apply(policy)
        if used is None:
            return None
        # a fixed policy skips the analyzer, so the pipeline never touches the model
        method = Mosaic(self.graph, cast(LLM, self.llm), policy=used, config=self.config)
        method.view = self.view
        final, _ = method.gather(query, Trace())
        name, control = (flip.name, flip.control) if flip else ("", "")
        return Replay(name, control, used.label, tuple(final))

    def answer(self, query: str, replay: Replay, task: Task) -> str:
        """The shared generator's answer over ``replay``'s context: the call MOSAIC itself
        makes, so a context that did not change is answered from the response cache."""
        if self.llm is None:
            raise ValueError("answers under a flip need an LLM; none was given")
        context = Context(list(replay.evidence)).render()
        return generate(self.llm, query, context, task, self.config.prompt_style).answer
