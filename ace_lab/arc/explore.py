"""Explore: induce the query-local interface ``Ŝ_q`` and its confirming paths ``I_q``.

Algorithm 1, line 10. A deterministic probe first reads the signatures ``(t_i, ρ, t_j)`` and
paths at the anchors (scoped to the retrieved passages on chunk-backed graphs). Then
``budget.explorers`` explorers run in parallel (``llm.map``), each for up to
``budget.explorer_turns`` turns of one batch of read-only Cypher; one looks for the relations
and paths around the anchors, the other for aliases and paraphrased descriptors. Every query
goes through :func:`~ace_lab.arc.execute.run_cypher` and is recorded. A malformed turn ends that
explorer (the fallback is recorded by ``llm.json``). With ArcRAG's ``grammar`` switch the turns
are written under the schema constraint (:mod:`ace_lab.arc.constrain`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ace_lab.arc.budget import Budget
from ace_lab.arc.constrain import constraint_for, explorer_turn
from ace_lab.arc.execute import QueryRecord, run_cypher
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.retrieve import Retrieval
from ace_lab.arc.rows import graph_items, rows_text
from ace_lab.arc.schema import StoreSchema
from ace_lab.arc.seek import into_anchors
from ace_lab.graph.names import bounded_list, bounded_str
from ace_lab.graph.store import GraphStore
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

#: What each explorer looks for (explorer i takes focus i mod 2).
FOCUS = (
    "relations and multi-hop paths from the anchors towards what the question asks for",
    "aliases of the anchors and differently worded relation descriptors with the same meaning",
)
#: Queries one turn may run (more are ignored).
TURN_QUERIES = 4
#: Paths kept in ``I_q``.
MAX_PATHS = 40


class ExplorerTurn(BaseModel):
    queries: bounded_list(str, 8) = Field(default_factory=list)
    descriptors: bounded_list(str, 20) = Field(default_factory=list)
    aliases: bounded_list(list[str], 20) = Field(default_factory=list)
    notes: bounded_str(600) = ""
    done: bool = False


def params_for(retrieval: Retrieval) -> dict[str, Any]:
    """The parameters bound in every model-written query."""
    return {"anchors": retrieval.anchor_keys, "chunk_ids": list(retrieval.chunk_ids)}


def probe_queries(
    schema: StoreSchema, retrieval: Retrieval, *, scan: bool = False
) -> tuple[str, str]:
    """The probe's two queries (signatures with counts, example paths) at the anchors: started
    from the anchors and the nodes with an edge into one (:func:`~ace_lab.arc.seek.into_anchors`),
    or, with ``scan`` or where those cannot be looked up, from a scan of every node (same rows,
    same order)."""
    a, b = schema.node_id("a"), schema.node_id("b")
    where = (
        f"({a} IN $anchors OR {b} IN $anchors) AND {schema.scope('r')} "
        f"AND {schema.not_passage('a')} AND {schema.not_passage('b')}"
    )
    start = None if scan else into_anchors(schema, [x.labels for x in retrieval.anchors])
    match = f"{start or ''}MATCH (a)-[r]->(b) WHERE {where} RETURN "
    rho = f"{schema.descriptor('r')} AS rho"
    return (
        f"{match}labels(a)[0] AS s, {rho}, labels(b)[0] AS o, count(*) AS c ORDER BY c DESC",
        f"{match}{schema.node_text('a')} AS s, {rho}, {schema.node_text('b')} AS o",
    )


def probe(
    store: GraphStore, schema: StoreSchema, retrieval: Retrieval, budget: Budget
) -> tuple[list[tuple[str, str, str, int]], list[str]]:
    """Signatures with counts, and example paths, at the anchors (no LLM call)."""
    if not retrieval.anchors:
        return [], []
    kw = {"timeout_ms": budget.timeout_ms, "max_rows": budget.max_rows}
    params = params_for(retrieval)
    signatures_query, paths_query = probe_queries(schema, retrieval)
    sigs = run_cypher(store, signatures_query, params, purpose="probe", **kw).rows
    paths = run_cypher(store, paths_query, params, purpose="probe", **kw).rows
    signatures = [(str(r["s"]), str(r["rho"]), str(r["o"]), int(r["c"])) for r in sigs]
    return signatures, [f"{r['s']} -[{r['rho']}]-> {r['o']}" for r in paths]


def _explorer(
    i: int,
    llm: LLM,
    store: GraphStore,
    schema: StoreSchema,
    question: str,
    retrieval: Retrieval,
    budget: Budget,
    constraint: str = "",
) -> tuple[list[ExplorerTurn], list[QueryRecord]]:
    turns: list[ExplorerTurn] = []
    records: list[QueryRecord] = []
    history: list[str] = []
    lines = [f"- {a.text} [{a.key}]" for a in retrieval.anchors]
    if constraint:  # a constrained start node carries a label: show which
        lines = [
            f"{line} ({', '.join(a.labels)})"
            for line, a in zip(lines, retrieval.anchors, strict=True)
        ]
    anchors = "\n".join(lines) or "(none found)"
    labels = tuple(dict.fromkeys(label for a in retrieval.anchors for label in a.labels))
    for turn in range(budget.explorer_turns):
        messages = load_prompt("arc_explore").messages(
            schema=schema.render(),
            question=question,
            focus=FOCUS[i % len(FOCUS)],
            anchors=anchors,
            hints="\n".join(retrieval.hints) or "(none)",
            history="\n\n".join(history) or "(first turn)",
        )
        refused: dict[str, str] = {}
        if constraint:
            value, fallback, refused = explorer_turn(
                llm,
                messages,
                ExplorerTurn,
                schema,
                labels,
                constraint,
                tag=f"arc.explore.{i}",
                seed=turn,
            )
        else:
            result = llm.json(
                messages,
                ExplorerTurn,
                tag=f"arc.explore.{i}",
                default=ExplorerTurn(done=True),
                max_tokens=800,
                seed=turn,
            )
            value, fallback = result.value, result.fallback
        turns.append(value)
        queries = [c for c in value.queries if c and c.strip()][:TURN_QUERIES]
        if fallback or not queries:
            break
        for cypher in queries:
            rec = run_cypher(
                store,
                cypher,
                params_for(retrieval),
                timeout_ms=budget.timeout_ms,
                max_rows=budget.max_rows,
                purpose=f"explore.{i}.{turn}",
                refused=refused.get(cypher.strip()),
            )
            records.append(rec)
            shown = f"error: {rec.error}" if rec.error else rows_text(rec.rows, schema, 10)
            history.append(f"Turn {turn + 1} query:\n{rec.text}\nResult:\n{shown}")
        if value.done:
            break
    return turns, records


def explore(
    llm: LLM,
    store: GraphStore,
    schema: StoreSchema,
    question: str,
    retrieval: Retrieval,
    budget: Budget,
    grammar: bool = False,
    patterns: bool = False,
) -> QueryInterface:
    """``Ŝ_q`` with ``I_q``: the probe's signatures and paths plus what the explorers found
    (``grammar``: the explorers write under the schema constraint, :mod:`ace_lab.arc.constrain`;
    ``patterns``: hops only along the graph's signatures)."""
    signatures, paths = probe(store, schema, retrieval, budget)
    constraint = constraint_for(llm, grammar, patterns)
    outcomes = llm.map(
        lambda i: _explorer(i, llm, store, schema, question, retrieval, budget, constraint),
        range(budget.explorers),
    )
    descriptors = list(dict.fromkeys(s[1] for s in signatures))
    aliases: list[tuple[str, ...]] = []
    notes: list[str] = []
    for turns, records in outcomes:
        for turn in turns:
            descriptors += [d.strip() for d in turn.descriptors if d.strip()]
            for group in turn.aliases:
                names = tuple(dict.fromkeys(n.strip() for n in group if n and n.strip()))
                if len(names) > 1 and names not in aliases:
                    aliases.append(names)
            if turn.notes.strip():
                notes.append(turn.notes.strip())
        for rec in records:
            for row in rec.rows:
                nodes, edges = graph_items(row, schema)
                names = {n.key: n.text for n in nodes}
                for e in edges:
                    descriptors.append(e.descriptor)
                    if e.source and e.target:
                        paths.append(f"{names[e.source]} -[{e.descriptor}]-> {names[e.target]}")
    return QueryInterface(
        anchors=retrieval.anchors,
        descriptors=tuple(dict.fromkeys(descriptors)),
        signatures=tuple(signatures),
        alias_groups=tuple(aliases),
        paths=tuple(dict.fromkeys(paths))[:MAX_PATHS],
        notes=tuple(notes),
    )
