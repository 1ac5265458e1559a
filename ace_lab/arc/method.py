"""ArcRAG as a method: the retrieve–answer loop of Algorithm 1, every stage a trace step.

Per question: ``S_G`` (cached per graph), one query rewrite, then passes of retrieve → explore →
plan → generate (one Cypher per subplan, refined within the retry budget) → witness → compose →
sufficiency, until the answer is judged sufficient, no follow-up question is formed, or the pass
cap is reached. The answer is always written by the shared generator
(:func:`ace_lab.methods.generate.generate`) from the composed witness context.

Configurations (:class:`ArcConfig`): ``full`` (Explorer + Planner + Generator),
``explorer+generator``, ``generator`` (retrieval and the generator only) and ``direct``
(Direct-Cypher: the question and ``S_G`` only, one attempt, one pass by its budget).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ace_lab.arc.answer import compose, sufficient
from ace_lab.arc.budget import Budget
from ace_lab.arc.explore import explore
from ace_lab.arc.generate import SubplanRun, run_subplan
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.plan import Plan, plan, question_plan
from ace_lab.arc.retrieve import Retrieval, retrieve, rewrite_query, search_phrases
from ace_lab.arc.schema import schema_for
from ace_lab.arc.witness import Witness
from ace_lab.bounded import Bounded, bounded
from ace_lab.evidence import Answer, Context, Trace
from ace_lab.llm import LLM
from ace_lab.methods.generate import PromptStyle, Task, generate

COMPONENTS = ("full", "explorer+generator", "generator", "direct")


@dataclass(frozen=True)
class ArcConfig(Bounded):
    """Which ArcRAG stages run (the budget is a separate :class:`Budget`)."""

    components: str = bounded(
        "full", choices=COMPONENTS,
        help="full: Explorer+Planner+Generator; explorer+generator; generator; direct",
    )  # fmt: skip
    prompt_style: str = bounded(
        "task", choices=("task", "generic", "json"), help="shared answer prompt style"
    )

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
        self, graph: Any, llm: LLM, config: ArcConfig | None = None,
        budget: Budget | None = None, *, name: str = "arcrag",
    ) -> None:  # fmt: skip
        self.graph = graph
        self.llm = llm
        self.config = config or ArcConfig()
        self.budget = budget or Budget()
        self.name = name

    def answer(self, query: str, task: Task = "qa") -> Answer:
        trace = Trace()
        with trace.activate():
            return self._answer(query, task, trace)

    def _answer(self, query: str, task: Task, trace: Trace) -> Answer:
        cfg, budget, llm, graph = self.config, self.budget, self.llm, self.graph
        with trace.step("schema", kind="schema") as step:
            schema, cached = schema_for(graph)
            step.outputs.update(schema=schema.to_dict(), rendered=schema.render(), cached=cached)
        current = query
        if not cfg.direct:
            with trace.step("plan:rewrite", kind="plan", query=query) as step:
                current, fell_back = rewrite_query(llm, query)
                step.outputs.update(rewritten=current, fallback=fell_back)
        witness = Witness()
        runs: list[SubplanRun] = []
        passes: list[dict[str, Any]] = []
        text, raw, items, stop = "", "", [], "pass cap"
        for p in range(1, budget.passes + 1):
            record: dict[str, Any] = {"pass": p, "query": current}
            retrieval = self._retrieve(trace, schema, current, p)
            interface = QueryInterface(anchors=retrieval.anchors)
            if cfg.explores:
                with trace.step(f"explore:p{p}", kind="explore") as step:
                    interface = explore(llm, graph.store, schema, current, retrieval, budget)
                    step.outputs.update(interface=interface.to_dict(), size=interface.size,
                                        rendered=interface.render())  # fmt: skip
            pl = self._plan(trace, schema, interface, retrieval, current, p)
            record.update(plan=pl.to_dict(), anchors=len(retrieval.anchors),
                          gaps=list(retrieval.gaps), interface_size=interface.size)  # fmt: skip
            for sp in pl.subplans:
                with trace.step(f"cypher:p{p}.s{sp.index}", kind="cypher") as step:
                    run = run_subplan(
                        llm, graph.store, schema, interface, sp, pl.answer_type, current,
                        retrieval.chunk_ids, budget, direct=cfg.direct,
                    )  # fmt: skip
                    runs.append(run)
                    step.outputs.update(
                        subplan=sp.render(), attempts=[a.to_dict() for a in run.attempts],
                        accepted=run.accepted is not None,
                    )  # fmt: skip
                    if run.accepted is not None:
                        one = Witness()
                        one.add(run.accepted, p, sp.index, schema)
                        step.add(compose(graph, schema, one, (), None))
                        step.outputs["new_elements"] = witness.add(
                            run.accepted, p, sp.index, schema
                        )
            with trace.step(f"witness:p{p}", kind="witness") as step:
                step.outputs.update(witness.stats())
            with trace.step(f"generate:p{p}", kind="generate", task=task) as step:
                items = compose(graph, schema, witness, retrieval.chunk_ids)
                fallback = [e for e in items if e.meta.get("fallback")]
                step.add(fallback)
                step.outputs.update(context=[e.id for e in items], fallback=bool(fallback))
                generation = generate(llm, query, Context(items).render(), task,
                                      self._style())  # fmt: skip
                text, raw = generation.answer, generation.raw
                step.outputs.update(answer=text, raw=raw)
            passes.append(record)
            if p == budget.passes:
                break
            with trace.step(f"judge:p{p}", kind="judge") as step:
                ok, follow, fell_back = sufficient(llm, query, text, Context(items).render())
                step.outputs.update(sufficient=ok, follow_up=follow, fallback=fell_back)
            if ok:
                stop = "sufficient" if not fell_back else "judgement unusable"
                break
            current = follow
        with trace.step("stop", kind="stop") as step:
            step.outputs.update(reason=stop, passes=len(passes))
        meta = {
            "method": self.name, "raw": raw, "passes": passes, "witness": witness.to_dict(),
            "budget": budget.label, "components": cfg.components,
            "stats": self._stats(trace, runs, witness, passes, stop),
        }  # fmt: skip
        return Answer(text, Context(items), trace, meta)

    def _style(self) -> PromptStyle:
        return self.config.prompt_style  # type: ignore[return-value]

    def _retrieve(self, trace: Trace, schema: Any, current: str, p: int) -> Retrieval:
        if self.config.direct:
            return _empty_retrieval(current)
        with trace.step(f"retrieve:p{p}", kind="retrieve", query=current) as step:
            phrases, fell_back = search_phrases(self.llm, current)
            retrieval = retrieve(self.graph, schema, phrases, self.budget)
            step.outputs.update(retrieval.to_dict())
            step.outputs["phrases_fallback"] = fell_back
            step.notes.append(
                f"{len(retrieval.anchors)} anchors; gaps: {', '.join(retrieval.gaps) or 'none'}"
            )
        return retrieval

    def _plan(self, trace: Trace, schema: Any, interface: QueryInterface,
              retrieval: Retrieval, current: str, p: int) -> Plan:  # fmt: skip
        if not self.config.plans:
            return question_plan(current, retrieval.anchor_keys)
        with trace.step(f"plan:p{p}", kind="plan") as step:
            pl = plan(self.llm, schema, interface, current, self.budget)
            step.outputs.update(pl.to_dict())
            step.notes.extend(pl.fallbacks)
        return pl

    @staticmethod
    def _stats(trace: Trace, runs: list[SubplanRun], witness: Witness,
               passes: list[dict[str, Any]], stop: str) -> dict[str, Any]:  # fmt: skip
        # the rates describe model-written Cypher: the scan template's attempts are left out
        written = [[a for a in r.attempts if not a.templated] for r in runs]
        attempts = [a for w in written for a in w]
        firsts = [w[0] for w in written if w]
        explored = sum(len(s.queries) for s in trace.steps if s.kind == "explore")
        executed = [q for s in trace.steps for q in s.outputs.get("cypher", ())]
        calls = trace.llm_calls
        share = lambda xs, f: round(sum(map(f, xs)) / len(xs), 4) if xs else 0.0  # noqa: E731
        return {
            "cypher_queries": len(attempts), "explorer_queries": explored,
            # every query any stage ran (probe, explorers, generator) and its store time
            "cypher_executed": len(executed),
            "cypher_ms": round(sum(q.get("ms", 0.0) for q in executed), 2),
            "valid_rate": share(attempts, lambda a: a.record.ok),
            "acceptable_rate": share(attempts, lambda a: a.acceptable),
            "first_valid_rate": share(firsts, lambda a: a.record.ok),
            "first_acceptable_rate": share(firsts, lambda a: a.acceptable),
            "written_subplans": len(firsts),
            "templated_queries": sum(a.templated for r in runs for a in r.attempts),
            "subplans": len(runs), "subplans_accepted": sum(r.accepted is not None for r in runs),
            "passes_used": len(passes), "stop_reason": stop,
            **witness.stats(),
            "interface_size": max((p.get("interface_size", 0) for p in passes), default=0),
            "cache_hit_share": share(calls, lambda c: c.cache_hit),
        }  # fmt: skip
