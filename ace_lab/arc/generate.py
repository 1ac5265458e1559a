"""Generate: compile each subplan into one read-only Cypher, check it, refine it.

Algorithm 1, lines 12–19. :func:`compile_cypher` asks for the least constrained query first;
:func:`acceptable` decides deterministically (it ran, within the timeout and the row cap, returned
rows, and those rows hold a value of the answer type); :func:`refine` revises predicates and
bindings while keeping the traversal shape. :func:`run_subplan` loops within ``budget.retries``
attempts. Every attempt runs through :func:`~ace_lab.arc.execute.run_cypher` with ``$anchors``
and, on chunk-backed graphs, ``$chunk_ids`` bound. Malformed model output is an empty query: a
failed attempt, recorded, never an exception.

The open neighbourhood scan has no predicate to compile: its least constrained query is the
anchors' one-hop neighbourhood, so its first attempt is :func:`scan_cypher`, built from the
introspected ``S_G`` with no LLM call (marked ``templated``; the valid/acceptable rates count
model-written Cypher only). Should it fail the acceptance check (an answer type it does not
hold), later attempts refine it with the model like any other subplan.

Algorithm 1 steps through a subplan's hops, binding each hop's anchors to the nodes the previous
hop returned; as in the paper's §4.4, one query chains all hops of a subplan (an open far end
enumerates a set, the next hop steps across those rows), so the rebinding happens inside Cypher.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ace_lab.arc.budget import Budget
from ace_lab.arc.execute import QueryRecord, run_cypher
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.plan import Subplan
from ace_lab.arc.rows import graph_items, row_values, rows_text
from ace_lab.arc.schema import StoreSchema
from ace_lab.graph.names import bounded_str
from ace_lab.graph.store import GraphStore
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt
from ace_lab.steps.arc import CypherAttempt

#: Answer types whose value must hold a digit (a year, a count, an amount).
NUMERIC_TYPES = ("date", "number", "year", "count", "amount", "quantity")


class CypherOut(BaseModel):
    cypher: bounded_str(4000) = ""


@dataclass(frozen=True)
class Attempt:
    record: QueryRecord
    acceptable: bool
    reason: str
    refined: bool
    templated: bool = False

    def recorded(self) -> CypherAttempt:
        """The trace's payload of this attempt."""
        return CypherAttempt(
            self.record.recorded(), self.acceptable, self.reason, self.refined, self.templated
        )


@dataclass
class SubplanRun:
    subplan: Subplan
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def accepted(self) -> QueryRecord | None:
        return next((a.record for a in self.attempts if a.acceptable), None)


def acceptable(record: QueryRecord, answer_type: str, schema: StoreSchema) -> tuple[bool, str]:
    """Table 3's check: runs, within timeout and row cap, non-empty, returns the answer type."""
    if record.error:
        return False, f"did not run: {record.error}"
    if record.truncated:
        return False, "hit the row cap: too broad, add constraints"
    if not record.rows:
        return False, "returned no rows"
    values: list[Any] = []
    for row in record.rows:
        values += row_values(row)
        nodes, _ = graph_items(row, schema)
        values += [n.text for n in nodes]
    if not values:
        return False, "rows hold no values"
    kind = answer_type.lower()
    if any(t in kind for t in NUMERIC_TYPES) and not any(
        isinstance(v, int | float) or re.search(r"\d", str(v)) for v in values
    ):
        return False, f"no value of the answer type ({answer_type})"
    return True, "acceptable"


def scan_cypher(schema: StoreSchema, max_rows: int) -> str:
    """The open neighbourhood scan: every relation at the bound anchors (``$anchors``), one hop,
    either direction, passage nodes left out, scoped to ``$chunk_ids`` on chunk-backed graphs."""
    return (
        f"MATCH (a)-[r]-(b) WHERE {schema.node_id('a')} IN $anchors AND {schema.scope('r')} "
        f"AND {schema.not_passage('b')} RETURN a, r, b LIMIT {max_rows}"
    )


def _anchors_text(interface: QueryInterface, keys: tuple[str, ...]) -> str:
    names = {a.key: a.text for a in interface.anchors}
    return "\n".join(f"- {names.get(k, k)} [{k}]" for k in keys) or "(none)"


def _cypher(llm: LLM, name: str, tag: str, seed: int, **variables: str) -> str:
    result = llm.json(
        load_prompt(name).messages(**variables),
        CypherOut,
        tag=tag,
        default=CypherOut(),
        max_tokens=600,
        seed=seed,
    )
    return result.value.cypher.strip()


def run_subplan(
    llm: LLM,
    store: GraphStore,
    schema: StoreSchema,
    interface: QueryInterface,
    subplan: Subplan,
    answer_type: str,
    question: str,
    chunk_ids: tuple[str, ...],
    budget: Budget,
    direct: bool = False,
) -> SubplanRun:
    """Compile, execute and refine one subplan within ``budget.retries`` attempts.

    ``direct``: Direct-Cypher's prompt (the question and ``S_G`` only, no parameters).
    """
    run = SubplanRun(subplan)
    params = {} if direct else {"anchors": list(subplan.anchors), "chunk_ids": list(chunk_ids)}
    shared = {
        "schema": schema.render(),
        "interface": interface.render(),
        "question": question,
        "answer_type": answer_type,
        "subplan": subplan.render(),
        "anchors": _anchors_text(interface, subplan.anchors),
    }
    for attempt in range(budget.retries):
        templated = subplan.open_scan and not direct and attempt == 0
        if templated:
            cypher = scan_cypher(schema, budget.max_rows)
        elif direct:
            cypher = _cypher(
                llm, "direct_cypher", "arc.direct", 0, schema=shared["schema"], question=question
            )
        elif attempt == 0:
            cypher = _cypher(llm, "arc_cypher", "arc.compile", 0, **shared)
        else:
            history = "\n\n".join(
                f"Attempt {i + 1}:\n{a.record.text or '(empty)'}\nOutcome: {a.reason}\n"
                f"Rows:\n{rows_text(a.record.rows, schema, 5)}"
                for i, a in enumerate(run.attempts)
            )
            cypher = _cypher(llm, "arc_refine", "arc.refine", attempt, attempts=history, **shared)
        record = run_cypher(
            store,
            cypher,
            params,
            timeout_ms=budget.timeout_ms,
            max_rows=budget.max_rows,
            purpose=f"subplan {subplan.index} attempt {attempt + 1}",
        )
        ok, reason = acceptable(record, answer_type, schema)
        run.attempts.append(Attempt(record, ok, reason, attempt > 0, templated))
        if ok:
            break
    return run
