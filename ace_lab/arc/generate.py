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
hold), later attempts refine it with the model like any other subplan. Its text is what the
trace and the refine prompt show; it runs as :func:`scan_seek`, started from the anchors
through the per-label id index instead of a scan of every node (same rows, same order).
With ArcRAG's ``grammar`` switch the model writes under the schema constraint
(:mod:`ace_lab.arc.constrain`), and each attempt records which one.

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
from ace_lab.arc.constrain import constraint_for, write_cypher
from ace_lab.arc.execute import QueryRecord, run_cypher
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.plan import Subplan
from ace_lab.arc.rows import graph_items, row_values, rows_text
from ace_lab.arc.schema import StoreSchema, q
from ace_lab.arc.seek import MAX_LABELS, starts
from ace_lab.arc.steps import CypherAttempt
from ace_lab.graph.names import bounded_str
from ace_lab.graph.store import GraphStore
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

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
    constraint: str = ""  # what the model wrote under: constrain.CONSTRAINTS ("": none)

    def recorded(self) -> CypherAttempt:
        """The trace's payload of this attempt."""
        return CypherAttempt(
            self.record.recorded(),
            self.acceptable,
            self.reason,
            self.refined,
            self.templated,
            constraint=self.constraint,
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


def scan_seek(schema: StoreSchema, max_rows: int, labels: tuple[str, ...]) -> str | None:
    """:func:`scan_cypher` started from the anchors through the per-label id index (anchors
    carrying ``labels``): the same rows in the same order without a scan of every node; None
    where the anchors cannot be looked up that way."""
    if schema.key is None or not labels or not all(labels) or len(labels) > MAX_LABELS:
        return None
    return starts(schema, sorted(set(labels)), "anchors") + scan_cypher(schema, max_rows)


def anchor_labels(interface: QueryInterface, keys: tuple[str, ...]) -> tuple[str, ...]:
    """The labels of the anchors ``keys`` (empty when one of them is unknown or unlabelled)."""
    found = {a.key: a.labels for a in interface.anchors}
    if not keys or any(not found.get(k) for k in keys):
        return ()
    return tuple(dict.fromkeys(label for k in keys for label in found[k]))


def _anchors_text(interface: QueryInterface, keys: tuple[str, ...], labelled: bool = False) -> str:
    names = {a.key: a.text for a in interface.anchors}
    labels = {a.key: a.labels for a in interface.anchors} if labelled else {}
    lines = [f"- {names.get(k, k)} [{k}]" for k in keys]
    if labelled:  # a constrained start node carries a label: show which
        lines = [
            f"{line} ({', '.join(labels.get(k, ()))})" for line, k in zip(lines, keys, strict=True)
        ]
    return "\n".join(lines) or "(none)"


@dataclass(frozen=True)
class Guide:
    """What a subplan's Cypher is written under (:mod:`ace_lab.arc.constrain`): the constraint
    ("" none), ``S_G``, the anchors' labels, whether queries start at the anchors, and the
    signatures of the edges at the anchors (the ``patterns`` switch's first hop)."""

    constraint: str
    schema: StoreSchema
    labels: tuple[str, ...]
    anchored: bool
    anchor_patterns: tuple[tuple[str, str, str], ...] = ()


def anchor_signatures(
    store: GraphStore,
    schema: StoreSchema,
    anchors: tuple[str, ...],
    labels: tuple[str, ...],
    budget: Budget,
) -> tuple[tuple[str, str, str], ...]:
    """The ``(label, type, label)`` signatures of the edges at ``anchors`` (no LLM call),
    seeking the anchors through their ``labels``' index where both are known."""
    if not anchors:
        return ()
    found = "RETURN labels(a)[0] AS s, type(r) AS t, labels(b)[0] AS o"
    if schema.key and labels:
        key = q(schema.key)
        cypher = " UNION ".join(  # UNION: each signature once
            f"MATCH ({end}:{q(label)}) WHERE {end}.{key} IN $anchors MATCH (a)-[r]->(b) {found}"
            for label in labels
            for end in ("a", "b")
        )
    else:
        a, b = schema.node_id("a"), schema.node_id("b")
        cypher = f"MATCH (a)-[r]->(b) WHERE {a} IN $anchors OR {b} IN $anchors " + found.replace(
            "RETURN", "RETURN DISTINCT"
        )
    kw = {"timeout_ms": budget.timeout_ms, "max_rows": budget.max_rows}
    rows = run_cypher(store, cypher, {"anchors": list(anchors)}, purpose="anchor hops", **kw).rows
    return tuple((str(r["s"]), str(r["t"]), str(r["o"])) for r in rows if r["s"] and r["o"])


def _cypher(
    llm: LLM,
    name: str,
    tag: str,
    seed: int,
    guide: Guide | None = None,
    **variables: str,
) -> tuple[str, str | None]:
    """``(cypher, refusal)`` of prompt ``name``, written under ``guide`` when it constrains."""
    messages = load_prompt(name).messages(**variables)
    if guide is not None and guide.constraint:
        return write_cypher(
            llm,
            messages,
            CypherOut,
            guide.schema,
            guide.labels,
            guide.constraint,
            tag=tag,
            seed=seed,
            anchored=guide.anchored,
            anchor_patterns=guide.anchor_patterns,
        )
    result = llm.json(messages, CypherOut, tag=tag, default=CypherOut(), max_tokens=600, seed=seed)
    return result.value.cypher.strip(), None


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
    template: bool = True,
    grammar: bool = False,
    patterns: bool = False,
) -> SubplanRun:
    """Compile, execute and refine one subplan within ``budget.retries`` attempts.

    ``direct``: Direct-Cypher's prompt (the question and ``S_G`` only, no parameters).
    ``template``: an open scan's first attempt is :func:`scan_cypher` (off: the model writes
    it like any other subplan's, as in the paper).
    ``grammar``: the model writes under the schema constraint (:mod:`ace_lab.arc.constrain`:
    a GBNF grammar where the endpoint takes one, else a JSON query plan); each attempt records
    which; ``patterns`` narrows it to hops the graph holds. The template's text is recorded as
    written and runs from the anchors' index.
    """
    run = SubplanRun(subplan)
    constraint = constraint_for(llm, grammar, patterns)
    labels = anchor_labels(interface, subplan.anchors)
    params = {} if direct else {"anchors": list(subplan.anchors), "chunk_ids": list(chunk_ids)}
    shared = {
        "schema": schema.render(),
        "interface": interface.render(),
        "question": question,
        "answer_type": answer_type,
        "subplan": subplan.render(),
        "anchors": _anchors_text(interface, subplan.anchors, labelled=constraint != ""),
    }
    hops = ()
    if patterns and not direct:
        hops = anchor_signatures(store, schema, subplan.anchors, labels, budget)
    guide = Guide(constraint, schema, labels, not direct, hops)
    for attempt in range(budget.retries):
        templated = template and subplan.open_scan and not direct and attempt == 0
        refused = seek = None
        if templated:
            cypher = scan_cypher(schema, budget.max_rows)
            seek = scan_seek(schema, budget.max_rows, labels)
        elif direct:
            cypher, refused = _cypher(
                llm,
                "direct_cypher",
                "arc.direct",
                0,
                guide,
                schema=shared["schema"],
                question=question,
            )
        elif attempt == 0:
            cypher, refused = _cypher(llm, "arc_cypher", "arc.compile", 0, guide, **shared)
        else:
            history = "\n\n".join(
                f"Attempt {i + 1}:\n{a.record.text or '(empty)'}\nOutcome: {a.reason}\n"
                f"Rows:\n{rows_text(a.record.rows, schema, 5)}"
                for i, a in enumerate(run.attempts)
            )
            cypher, refused = _cypher(
                llm, "arc_refine", "arc.refine", attempt, guide, attempts=history, **shared
            )
        record = run_cypher(
            store,
            seek or cypher,
            params,
            timeout_ms=budget.timeout_ms,
            max_rows=budget.max_rows,
            purpose=f"subplan {subplan.index} attempt {attempt + 1}",
            shown=cypher if seek else None,
            refused=refused,
        )
        ok, reason = acceptable(record, answer_type, schema)
        written = "" if templated else constraint
        run.attempts.append(Attempt(record, ok, reason, attempt > 0, templated, written))
        if ok:
            break
    return run
