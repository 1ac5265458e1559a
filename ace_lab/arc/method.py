"""ArcRAG as a method: the retrieve–answer loop of Algorithm 1, every stage a trace step.

Per question: ``S_G`` (cached per graph), one query rewrite, then passes of retrieve → explore →
plan → generate (one Cypher per subplan, refined within the retry budget) → witness → compose →
sufficiency, until the answer is judged sufficient, no follow-up question is formed, or the pass
cap is reached. Each pass's answer is written by the shared answer step
(:func:`ace_lab.methods.answer_step.answer_step`: the same prompt, call and parsing as every
method's, its payload ArcRAG's per-pass ``ArcGeneration``) from the composed witness context.

Configurations (:class:`ArcConfig`): ``full`` (Explorer + Planner + Generator),
``explorer+generator``, ``generator`` (retrieval and the generator only) and ``direct``
(Direct-Cypher: the question and ``S_G`` only, one attempt, one pass by its budget). Two
switches, on by default, are the project's help for small models; ``arcrag:strict`` turns both
off, as the paper has it: ``template`` (an open scan's first attempt is the schema's
neighbourhood-scan template, no model call) and ``fallback`` (an empty witness answers from the
retrieved passages; off: from an empty context).

Each step records a typed payload (:mod:`ace_lab.arc.steps`) that carries its pass and subplan;
the answer's :class:`~ace_lab.arc.steps.ArcDetails` hold the budget, the passes, the witness and
the per-question ``stats``, which say what share of the context came from model-written queries,
from the template and from the fallback (:func:`~ace_lab.arc.answer.context_provenance`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from ace_lab.arc.answer import (
    compose,
    context_provenance,
    context_source,
    judge_sufficiency,
    stop_reason,
)
from ace_lab.arc.budget import Budget
from ace_lab.arc.execute import QueryRecord, query_log
from ace_lab.arc.explore import explore
from ace_lab.arc.generate import SubplanRun, run_subplan
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.plan import Plan, plan, question_plan
from ace_lab.arc.retrieve import Retrieval, retrieve, rewrite_query, search_phrases
from ace_lab.arc.schema import schema_for
from ace_lab.arc.steps import (
    ArcDetails,
    ArcGeneration,
    ArcPass,
    CypherExecution,
    QueryRewrite,
    SchemaView,
    SufficiencyCheck,
    WitnessUpdate,
)
from ace_lab.arc.witness import Witness
from ace_lab.bounded import Bounded, ConfigError, bounded
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Answer, Context, Trace
from ace_lab.llm import LLM
from ace_lab.methods.answer_step import answer_step
from ace_lab.methods.generate import PromptStyle, Task
from ace_lab.steps import StopDecision

COMPONENTS = ("full", "explorer+generator", "generator", "direct")


@dataclass(frozen=True)
class ArcConfig(Bounded):
    """Which ArcRAG stages run (the budget is a separate :class:`Budget`)."""

    components: str = bounded(
        "full",
        choices=COMPONENTS,
        help="full: Explorer+Planner+Generator; explorer+generator; generator; direct",
    )
    prompt_style: str = bounded(
        "task", choices=("task", "generic", "json"), help="shared answer prompt style"
    )
    template: bool = bounded(
        True,
        help="first attempt at an open-scan subplan is the schema's neighbourhood-scan template "
        "(off: the model writes it, as the paper does)",
    )
    fallback: bool = bounded(
        True,
        help="an empty witness answers from the retrieved passages "
        "(off: from an empty context, as the paper does)",
    )
    grammar: bool = bounded(
        False,
        help="Generator and Explorer Cypher is written under a constraint built from the schema "
        "(a GBNF grammar on llama.cpp endpoints, else a JSON query plan compiled to Cypher)",
    )

    patterns: bool = bounded(
        False,
        help="with grammar: a hop must be one the graph holds (its (label, type, label) "
        "signatures), so the model cannot write a pattern that matches nothing",
    )

    context_tokens: int = bounded(
        CONTEXT_BUDGET_TOKENS,
        lo=1,
        hi=100_000,
        help="token cap of the composed context the answer is read from (the name's b<N>)",
    )

    judge_temperature: float = bounded(
        0.0,
        lo=0.0,
        hi=2.0,
        help="sampling temperature of the sufficiency judgement: 0 (greedy, every agent's "
        "here) or the paper's 1.0 (its answer model judges, sampling; the judge token)",
    )

    #: Switches added after records were written: left out of the configuration hash while at
    #: their default, so every existing name keeps its hash (ace_lab.eval.studies.identity).
    HASH_OMITS_AT_DEFAULT: ClassVar[tuple[str, ...]] = (
        *("template", "fallback", "grammar", "patterns", "context_tokens", "judge_temperature"),
    )

    def validate(self) -> None:
        super().validate()
        if self.patterns and not self.grammar:
            raise ConfigError("patterns narrows the grammar: it needs grammar on")

    @property
    def explores(self) -> bool:
        return self.components in ("full", "explorer+generator")

    @property
    def plans(self) -> bool:
        return self.components == "full"

    @property
    def direct(self) -> bool:
        return self.components == "direct"


def _empty_retrieval(query: str) -> Retrieval:
    return Retrieval((query,), "none", {}, (), (), (), ())


class ArcRAG:
    """ArcRAG over one ``RetrievalGraph`` (its Cypher store and its text indexes)."""

    def __init__(
        self,
        graph: Any,
        llm: LLM,
        config: ArcConfig | None = None,
        budget: Budget | None = None,
        *,
        name: str = "arcrag",
    ) -> None:
        self.graph = graph
        self.llm = llm
        self.config = config or ArcConfig()
        self.budget = budget or Budget()
        self.name = name

    def answer(self, query: str, task: Task = "qa") -> Answer:
        trace = Trace()
        with trace.activate(), query_log() as log:
            return self.run(query, task, trace, log)

    def run(self, query: str, task: Task, trace: Trace, log: list[QueryRecord]) -> Answer:
        """Algorithm 1 for ``query``, every stage a step of ``trace`` (an ArcRAG source runs it
        inside a composed trace), every Cypher read appended to ``log``."""
        cfg, budget, llm, graph = self.config, self.budget, self.llm, self.graph
        with trace.step("schema", kind="schema") as step:
            schema, cached = schema_for(graph)
            step.record(SchemaView(schema.to_dict(), schema.render(), cached))
        current = query
        if not cfg.direct:
            with trace.step("plan:rewrite", kind="plan", query=query) as step:
                current, fell_back = rewrite_query(llm, query)
                step.record(QueryRewrite(query, current, fell_back))
        witness = Witness()
        templated: set[str] = set()  # witness query ids the scan template wrote
        runs: list[SubplanRun] = []
        passes: list[ArcPass] = []
        text, raw, items, stop = "", "", [], "pass cap"
        for p in range(1, budget.passes + 1):
            retrieval = self._retrieve(trace, schema, current, p)
            interface = QueryInterface(anchors=retrieval.anchors)
            if cfg.explores:
                with trace.step(f"explore:p{p}", kind="explore") as step:
                    start = len(log)
                    interface = explore(
                        llm,
                        graph.store,
                        schema,
                        current,
                        retrieval,
                        budget,
                        cfg.grammar,
                        cfg.patterns,
                    )
                    step.record(interface.built(p, tuple(r.recorded() for r in log[start:])))
            pl = self._plan(trace, schema, interface, retrieval, current, p)
            added = 0
            for sp in pl.subplans:
                with trace.step(f"cypher:p{p}.s{sp.index}", kind="cypher") as step:
                    run = run_subplan(
                        llm,
                        graph.store,
                        schema,
                        interface,
                        sp,
                        pl.answer_type,
                        current,
                        retrieval.chunk_ids,
                        budget,
                        direct=cfg.direct,
                        template=cfg.template,
                        grammar=cfg.grammar,
                        patterns=cfg.patterns,
                    )
                    runs.append(run)
                    new = 0
                    if run.accepted is not None:
                        if any(a.templated for a in run.attempts if a.acceptable):
                            templated.add(f"p{p}.s{sp.index}")  # the witness's query id
                        one = Witness()
                        one.add(run.accepted, p, sp.index, schema)
                        step.add(compose(graph, schema, one, (), None))
                        new = witness.add(run.accepted, p, sp.index, schema)
                    added += new
                    attempts = tuple(a.recorded() for a in run.attempts)
                    accepted = run.accepted is not None
                    step.record(CypherExecution(p, sp.index, sp.render(), attempts, accepted, new))
            with trace.step(f"witness:p{p}", kind="witness") as step:
                step.record(WitnessUpdate(p, added, **witness.stats()))
            # strict (the paper): no fallback passages, an empty witness answers from nothing
            fallback_ids = retrieval.chunk_ids if cfg.fallback else ()
            items = compose(graph, schema, witness, fallback_ids, cfg.context_tokens)
            fallback = [e for e in items if e.meta.get("fallback")]
            generation = answer_step(
                trace,
                llm,
                query,
                Context(items),
                task,
                self._style(),
                name=f"generate:p{p}",
                final=p == budget.passes,  # an earlier pass's answer is what the judge reads
                inputs={"task": task},
                added=fallback,
                payload=partial(
                    ArcGeneration,
                    pass_index=p,
                    context_ids=tuple(e.id for e in items),
                    fallback=bool(fallback),
                    sources=tuple(context_source(e, templated) for e in items),
                ),
            )
            text, raw = generation.answer, generation.raw
            passes.append(
                ArcPass(
                    p,
                    current,
                    pl.recorded(p, current),
                    len(retrieval.anchors),
                    retrieval.gaps,
                    interface.size,
                )
            )
            if p == budget.passes:
                break
            with trace.step(f"judge:p{p}", kind="judge") as step:
                rendered = Context(items).render()
                judged = judge_sufficiency(llm, query, text, rendered, cfg.judge_temperature)
                ok, follow, fell_back = judged.ok, judged.follow_up, judged.fallback
                step.record(SufficiencyCheck(p, ok, follow, fell_back, judged.said_sufficient))
            if ok:
                stop = stop_reason(judged)
                break
            current = follow
        with trace.step("stop", kind="stop") as step:
            step.record(StopDecision(stop, len(passes)))
        recorded = witness.to_dict()
        for q in recorded["queries"]:
            q["templated"] = q["query_id"] in templated
        stats = self._stats(trace, runs, witness, passes, stop, log)
        details = ArcDetails(
            budget=budget.label,
            components=cfg.components,
            stats=stats | context_provenance(items, templated),
            passes=tuple(passes),
            witness=recorded,
        )
        return Answer(text, Context(items), trace, method=self.name, raw=raw, details=details)

    def _style(self) -> PromptStyle:
        return self.config.prompt_style  # type: ignore[return-value]

    def _retrieve(self, trace: Trace, schema: Any, current: str, p: int) -> Retrieval:
        if self.config.direct:
            return _empty_retrieval(current)
        with trace.step(f"retrieve:p{p}", kind="retrieve", query=current) as step:
            phrases, fell_back = search_phrases(self.llm, current)
            retrieval = retrieve(self.graph, schema, phrases, self.budget)
            step.record(retrieval.recorded(p, current, fell_back))
            step.notes.append(
                f"{len(retrieval.anchors)} anchors; gaps: {', '.join(retrieval.gaps) or 'none'}"
            )
        return retrieval

    def _plan(
        self,
        trace: Trace,
        schema: Any,
        interface: QueryInterface,
        retrieval: Retrieval,
        current: str,
        p: int,
    ) -> Plan:
        if not self.config.plans:
            return question_plan(current, retrieval.anchor_keys)
        with trace.step(f"plan:p{p}", kind="plan") as step:
            pl = plan(self.llm, schema, interface, current, self.budget)
            step.record(pl.recorded(p, current))
            step.notes.extend(pl.fallbacks)
        return pl

    @staticmethod
    def _stats(
        trace: Trace,
        runs: list[SubplanRun],
        witness: Witness,
        passes: list[ArcPass],
        stop: str,
        executed: list[QueryRecord],
    ) -> dict[str, Any]:
        # the rates describe model-written Cypher: the scan template's attempts are left out
        written = [[a for a in r.attempts if not a.templated] for r in runs]
        attempts = [a for w in written for a in w]
        firsts = [w[0] for w in written if w]
        explored = sum(len(s.queries) for s in trace.steps if s.kind == "explore")
        calls = trace.llm_calls
        return {
            "cypher_queries": len(attempts),
            "explorer_queries": explored,
            # every query any stage ran (probe, explorers, generator) and its store time
            "cypher_executed": len(executed),
            "cypher_ms": round(sum(round(q.ms, 2) for q in executed), 2),
            "valid_rate": _share(attempts, lambda a: a.record.ok),
            "acceptable_rate": _share(attempts, lambda a: a.acceptable),
            "first_valid_rate": _share(firsts, lambda a: a.record.ok),
            "first_acceptable_rate": _share(firsts, lambda a: a.acceptable),
            "written_subplans": len(firsts),
            "templated_queries": sum(a.templated for r in runs for a in r.attempts),
            "subplans": len(runs),
            "subplans_accepted": sum(r.accepted is not None for r in runs),
            "passes_used": len(passes),
            "stop_reason": stop,
            **witness.stats(),
            "interface_size": max((p.interface_size for p in passes), default=0),
            "cache_hit_share": _share(calls, lambda c: c.cache_hit),
        }


def _share(items: Sequence[Any], test: Callable[[Any], bool]) -> float:
    """The share of ``items`` that pass ``test``, to 4 places (0.0 for none)."""
    return round(sum(map(test, items)) / len(items), 4) if items else 0.0
