"""Step payloads specific to ArcRAG (plain data; views and reports dispatch on these types).

ArcRAG's steps record, in order: ``schema`` a :class:`SchemaView`; ``plan:rewrite`` a
:class:`QueryRewrite`; then per pass ``retrieve:p<k>`` an :class:`ArcRetrieval`,
``explore:p<k>`` an :class:`InterfaceBuilt`, ``plan:p<k>`` an :class:`ArcPlan`, one
``cypher:p<k>.s<i>`` per subplan a :class:`CypherExecution` (its :class:`CypherAttempt` s),
``witness:p<k>`` a :class:`WitnessUpdate`, ``generate:p<k>`` an :class:`ArcGeneration` and
``judge:p<k>`` a :class:`SufficiencyCheck`; ``stop`` a generic ``StopDecision``. Every payload
of the loop carries its pass (and subplan) number, so no reader decodes it from a step name.
:class:`ArcDetails` is what an answer reports beyond its text; its record column is ``stats``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ace_lab.steps import AnswerDetails, Generation, StepPayload


@dataclass(frozen=True)
class SchemaView(StepPayload):
    """``S_G`` as introspection found it (``StoreSchema.to_dict``), as prompts see it, and
    whether it came from the per-graph cache."""

    schema: dict[str, Any]
    rendered: str = ""
    cached: bool = False

    def line(self) -> str:
        labels, types = self.schema.get("labels", {}), self.schema.get("rel_types", {})
        backed = "chunk-backed" if self.schema.get("chunk_backed") else "not chunk-backed"
        cached = ", cached" if self.cached else ""
        return f"schema: {len(labels)} labels, {len(types)} relationship types, {backed}{cached}"


@dataclass(frozen=True)
class QueryRewrite(StepPayload):
    """The question rewritten once before the loop (``fallback``: the original was kept)."""

    query: str
    rewritten: str
    fallback: bool = False

    def line(self) -> str:
        how = " (fell back to the question)" if self.fallback else ""
        return f"rewritten: {self.rewritten!r}{how}"


@dataclass(frozen=True)
class ArcAnchor(StepPayload):
    """A graph node a search phrase names: its identifier, name, labels and the phrase."""

    key: str
    text: str
    labels: tuple[str, ...]
    phrase: str

    def line(self) -> str:
        return f"anchor {self.text} [{self.key}] named by {self.phrase!r}"


@dataclass(frozen=True)
class ArcRetrieval(StepPayload):
    """One pass's retrieval: the phrases searched (``phrases_fallback``: the query itself),
    the store that seeded it, hits per phrase, the anchors named, the gaps (phrases that named
    none), the passage scope ``$chunk_ids`` and the triple hints."""

    pass_index: int
    query: str
    phrases: tuple[str, ...]
    store: str
    hits: dict[str, tuple[tuple[str, float], ...]]
    anchors: tuple[ArcAnchor, ...] = ()
    gaps: tuple[str, ...] = ()
    chunk_ids: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()
    phrases_fallback: bool = False

    def line(self) -> str:
        gaps = ", ".join(self.gaps) or "none"
        return f"pass {self.pass_index}: {len(self.anchors)} anchors; gaps: {gaps}"


@dataclass(frozen=True)
class CypherQuery(StepPayload):
    """One executed (or refused) query: what was sent and what came back (rows cut to the
    first few; ``n_rows`` is exact). ``rewritten`` says why the text was changed first."""

    text: str
    params: dict[str, Any]
    rows: tuple[dict[str, Any], ...] = ()
    n_rows: int = 0
    columns: tuple[str, ...] = ()
    truncated: bool = False
    ms: float = 0.0
    error: str | None = None
    purpose: str = ""
    rewritten: str | None = None

    def line(self) -> str:
        outcome = f"error: {self.error}" if self.error else f"{self.n_rows} rows"
        return f"{self.purpose or 'query'}: {outcome} in {self.ms:.1f} ms"


@dataclass(frozen=True)
class InterfaceBuilt(StepPayload):
    """``Ŝ_q`` and ``I_q`` of one pass (anchors, descriptors, signatures with counts, alias
    groups, confirming paths, explorer notes), its size, its prompt text and every query the
    probe and the explorers ran."""

    pass_index: int
    anchors: tuple[ArcAnchor, ...] = ()
    descriptors: tuple[str, ...] = ()
    signatures: tuple[tuple[str, str, str, int], ...] = ()
    alias_groups: tuple[tuple[str, ...], ...] = ()
    paths: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    size: int = 0
    rendered: str = ""
    queries: tuple[CypherQuery, ...] = ()

    def line(self) -> str:
        return (
            f"pass {self.pass_index}: interface of size {self.size} ({len(self.paths)} paths, "
            f"{len(self.queries)} queries)"
        )


@dataclass(frozen=True)
class PlannedSubplan(StepPayload):
    """One subplan of a pass's plan: its goal, hops, whether it is the open neighbourhood scan,
    and the anchors bound to it."""

    pass_index: int
    index: int
    goal: str
    hops: tuple[str, ...] = ()
    open_scan: bool = False
    anchors: tuple[str, ...] = ()

    def line(self) -> str:
        kind = "open scan" if self.open_scan else "traversal"
        return f"p{self.pass_index}.s{self.index} ({kind}): {self.goal}"


@dataclass(frozen=True)
class ArcPlan(StepPayload):
    """A pass's plan: the question it answers, the answer type, the ordered subplans and the
    planner's fallbacks (also the one-subplan plan of configurations without a planner)."""

    pass_index: int
    query: str
    answer_type: str
    subplans: tuple[PlannedSubplan, ...] = ()
    fallbacks: tuple[str, ...] = ()

    def line(self) -> str:
        fell = f"; {'; '.join(self.fallbacks)}" if self.fallbacks else ""
        return f"pass {self.pass_index}: {len(self.subplans)} subplan(s), {self.answer_type}{fell}"


@dataclass(frozen=True)
class CypherAttempt(StepPayload):
    """One attempt at a subplan's Cypher: the query and what came back, whether it was
    acceptable and why (not), whether it refined an earlier attempt, and whether it is the
    schema template of the neighbourhood scan (no model wrote it), and the constraint the model
    wrote it under (``constraint``: "gbnf" or "json-plan", either with "+patterns", or "" for
    none)."""

    query: CypherQuery
    acceptable: bool
    reason: str
    refined: bool = False
    templated: bool = False
    constraint: str = ""

    def line(self) -> str:
        under = f" (written under {self.constraint})" if self.constraint else ""
        return f"{'acceptable' if self.acceptable else 'rejected'}{under}: {self.reason}"


@dataclass(frozen=True)
class CypherExecution(StepPayload):
    """A subplan compiled and refined within the retry budget: its attempts in order, whether
    one was acceptable, and how many new elements that one added to the witness."""

    pass_index: int
    subplan_index: int
    subplan: str
    attempts: tuple[CypherAttempt, ...] = ()
    accepted: bool = False
    new_elements: int = 0

    def line(self) -> str:
        outcome = f"accepted, {self.new_elements} new elements" if self.accepted else "none ok"
        where = f"p{self.pass_index}.s{self.subplan_index}"
        n, templated = len(self.attempts), sum(a.templated for a in self.attempts)
        how = f"{n} attempt(s) ({templated} template, {n - templated} model-written)"
        return f"{where}: {how if templated else f'{n} model-written attempt(s)'}, {outcome}"

    def details(self) -> tuple[str, ...]:
        """Each attempt: who wrote it, the constraint, the verdict and the Cypher itself."""
        lines = []
        for i, attempt in enumerate(self.attempts, 1):
            who = "template" if attempt.templated else "model"
            lines.append(f"attempt {i} ({who}) {attempt.line()}")
            lines.append(f"  cypher: {' '.join(attempt.query.text.split())}")
        return tuple(lines)


@dataclass(frozen=True)
class WitnessUpdate(StepPayload):
    """The witness after a pass: what the pass added and the totals so far."""

    pass_index: int
    new_elements: int = 0
    witness_nodes: int = 0
    witness_edges: int = 0
    witness_rows: int = 0
    witness_queries: int = 0

    def stats(self) -> dict[str, int]:
        """The witness totals, as ``stats`` keeps them."""
        return {
            "witness_nodes": self.witness_nodes,
            "witness_edges": self.witness_edges,
            "witness_rows": self.witness_rows,
            "witness_queries": self.witness_queries,
        }

    def line(self) -> str:
        return (
            f"pass {self.pass_index}: +{self.new_elements}; witness {self.witness_nodes} nodes, "
            f"{self.witness_edges} edges, {self.witness_rows} rows"
        )


@dataclass(frozen=True)
class ArcGeneration(Generation):
    """A pass's answer: the generic generation, the pass, the context it was composed from,
    whether that context fell back to the retrieved passages (the witness held none), and where
    each context item came from (``sources``, parallel to ``context_ids``: ``model``,
    ``template`` or ``fallback``; empty in records written before it was kept)."""

    pass_index: int = 0
    context_ids: tuple[str, ...] = ()
    fallback: bool = False
    sources: tuple[str, ...] = ()

    def source_counts(self) -> dict[str, int]:
        """How many context items came from each source, in first-seen order."""
        counts: dict[str, int] = {}
        for source in self.sources:
            counts[source] = counts.get(source, 0) + 1
        return counts

    def line(self) -> str:
        fell = ", retrieved passages" if self.fallback else ""
        counts = ", ".join(f"{n} {source}" for source, n in self.source_counts().items())
        origin = f": {counts}" if counts else ""
        items = f"{len(self.context_ids)} items{origin}{fell}"
        return f"pass {self.pass_index} answer: {self.answer} ({items})"


@dataclass(frozen=True)
class SufficiencyCheck(StepPayload):
    """The sufficiency judgement of a pass: ok (the loop stops), or the follow-up question of
    the next pass (``fallback``: the judgement was unusable, which ends the loop).
    ``said_sufficient`` is the verdict the model wrote: false with ``sufficient`` true means it
    judged the answer insufficient but asked no follow-up, which also stops the loop (the
    paper's rule); None in records written before it was kept."""

    pass_index: int
    sufficient: bool
    follow_up: str = ""
    fallback: bool = False
    said_sufficient: bool | None = None

    def line(self) -> str:
        verdict = "sufficient" if self.sufficient else f"follow up: {self.follow_up!r}"
        if self.sufficient and self.said_sufficient is False:
            verdict = "insufficient, no follow-up"
        return f"pass {self.pass_index}: {verdict}" + (" (fallback)" if self.fallback else "")


@dataclass(frozen=True)
class ArcPass(StepPayload):
    """One pass of the loop in the answer's summary: its question, its plan (also without a
    planner step), the anchors and gaps of its retrieval, and its interface's size."""

    pass_index: int
    query: str
    plan: ArcPlan
    anchors: int = 0
    gaps: tuple[str, ...] = ()
    interface_size: int = 0

    def line(self) -> str:
        return f"pass {self.pass_index}: {self.query!r}, {len(self.plan.subplans)} subplan(s)"


@dataclass(frozen=True)
class ArcDetails(AnswerDetails):
    """What ArcRAG reports about one answer: its budget and components, the per-question
    ``stats`` (its record column; ``context_from_model``/``_template``/``_fallback`` are the
    final context's token shares by origin, ``context_items_*`` its item counts, see
    ``ace_lab.arc.answer.context_provenance``), the passes and the witness
    (``Witness.to_dict()``: ``queries`` with their row digests for replay and whether the scan
    template wrote them, ``templated``; and ``elements``)."""

    budget: str
    components: str
    stats: dict[str, Any]
    passes: tuple[ArcPass, ...] = ()
    witness: dict[str, Any] | None = None

    def columns(self) -> dict[str, Any]:
        """ArcRAG's record column, exactly as records have always held it."""
        return {"stats": dict(self.stats)}

    def line(self) -> str:
        stop = self.stats.get("stop_reason", "?")
        return f"ArcRAG {self.components} ({self.budget}): {len(self.passes)} pass(es), {stop}"
