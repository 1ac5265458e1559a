"""ArcRAG's tables for notebook 04, read from an answer's trace payloads and its details alone.

- :func:`schema_side_by_side`: ``S_G`` of several graphs (one column per family): names with
  counts, the inferred identifier and name keys, where relations live, provenance;
- :func:`retrieval_table` / :func:`chunk_scope`: per pass, each search phrase with its hits,
  the anchors it named or the gap it left, and the passage ids that scope later queries;
- :func:`plan_table`: per pass, the answer type and the ordered subplans with their anchors;
- :func:`attempts_table`: every Cypher attempt of every subplan with what came back and why it
  was or was not acceptable;
- :func:`replay_table` (the witness replayed) and :func:`family_comparison` (one question on
  several graphs, from the answers' ``stats``).

Every table dispatches on the payload types of :mod:`ace_lab.arc.steps`; the pass and subplan
numbers are the payloads' own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import pandas as pd

from ace_lab.arc.steps import ArcDetails, ArcRetrieval, CypherExecution, SchemaView
from ace_lab.eval.metrics.context_stats import ORIGIN_COLUMNS
from ace_lab.evidence import Answer, Trace
from ace_lab.steps import StepPayload

#: What an acceptable attempt satisfied (Table 3's check), spelled out for the table.
ACCEPTED_WHY = "ran within the timeout and row cap, returned rows holding the answer type"
P = TypeVar("P", bound=StepPayload)


def payloads(trace: Trace, kind: type[P]) -> list[P]:
    """The payloads of type ``kind`` the trace's own steps recorded, in trace order (a
    composition's branch steps, ``depth/retrieve``, are its source's retrievals for ACE's
    branches, not ArcRAG's loop: :attr:`~ace_lab.trace.Trace.own_steps`)."""
    return [s.payload for s in trace.own_steps if isinstance(s.payload, kind)]


def details(answer: Answer) -> ArcDetails | None:
    """The answer's ArcRAG details (None for an answer of another method)."""
    return answer.details if isinstance(answer.details, ArcDetails) else None


def schema_of(trace: Trace) -> dict[str, Any]:
    """``S_G`` as the trace's schema step recorded it ({} when there is none)."""
    found = payloads(trace, SchemaView)
    return dict(found[0].schema) if found else {}


def _counts(named: Mapping[str, int]) -> str:
    return ", ".join(f"{k} ({v})" for k, v in named.items()) or "—"


def _schema_column(s: Mapping[str, Any], patterns: int) -> dict[str, str]:
    ident = s.get("key") or "id()"
    relations = s.get("relation_property")
    provenance = s.get("provenance_property")
    sigs = [f"({a})-[{r}]->({b}) ×{c}" for a, r, b, c in s.get("signatures", [])]
    more = " …" if len(sigs) > patterns else ""
    return {
        "node labels (count)": _counts(s.get("labels", {})),
        "relationship types (count)": _counts(s.get("rel_types", {})),
        "property keys": ", ".join(s.get("property_keys", [])) or "—",
        "node identifier": str(ident),
        "node names": str(s.get("text_key") or ident),
        "relations live in": f"edge property {relations}" if relations else "relationship types",
        "edge provenance": f"edge property {provenance}" if provenance else "none",
        "chunk-backed": "yes" if s.get("chunk_backed") else "no",
        "passage nodes": str(s.get("passage_label") or "none"),
        "patterns": f"{len(sigs)}: " + "; ".join(sigs[:patterns]) + more,
    }


def schema_side_by_side(traces: Mapping[str, Trace], patterns: int = 4) -> pd.DataFrame:
    """One row per facet of ``S_G``, one column per graph (``family → trace``)."""
    return pd.DataFrame(
        {name: _schema_column(schema_of(t), patterns) for name, t in traces.items()}
    )


RETRIEVAL_COLUMNS = ["pass", "phrase", "store", "hits", "top hits", "anchors", "gap"]


def retrieval_rows(r: ArcRetrieval) -> list[dict[str, Any]]:
    """One pass's retrieval, a row per search phrase (see :func:`retrieval_table`)."""
    rows = []
    for phrase in r.phrases:
        hits = r.hits.get(phrase, ())
        named = [a for a in r.anchors if a.phrase == phrase]
        rows.append(
            {
                "pass": r.pass_index,
                "phrase": phrase,
                "store": r.store,
                "hits": len(hits),
                "top hits": ", ".join(str(h[0]) for h in hits[:3]),
                "anchors": "; ".join(f"{a.text} [{a.key}]" for a in named) or "—",
                "gap": phrase in r.gaps,
            }
        )
    return rows


def retrieval_table(trace: Trace) -> pd.DataFrame:
    """Per pass and search phrase: the index hits, the anchors the phrase named, or a gap."""
    rows = [row for r in payloads(trace, ArcRetrieval) for row in retrieval_rows(r)]
    return pd.DataFrame(rows, columns=RETRIEVAL_COLUMNS)


def chunk_scope(trace: Trace) -> pd.DataFrame:
    """Per pass: which text store seeded it and the passage ids later queries were scoped to
    (none on graphs whose edges do not point to passages)."""
    rows = [
        {
            "pass": r.pass_index,
            "store": r.store,
            "chunk ids": len(r.chunk_ids),
            "scope": ", ".join(map(str, r.chunk_ids)) or "(not chunk-backed)",
        }
        for r in payloads(trace, ArcRetrieval)
    ]
    return pd.DataFrame(rows, columns=["pass", "store", "chunk ids", "scope"])


PLAN_COLUMNS = [
    "pass",
    "query",
    "answer type",
    "subplan",
    "goal",
    "kind",
    "hops",
    "anchors",
    "fallbacks",
]


def plan_table(answer: Answer) -> pd.DataFrame:
    """Per pass: the question it answered, the answer type and each subplan in order."""
    rows = []
    found = details(answer)
    for record in found.passes if found is not None else ():
        plan = record.plan
        for sp in plan.subplans:
            rows.append(
                {
                    "pass": record.pass_index,
                    "query": record.query,
                    "answer type": plan.answer_type,
                    "subplan": sp.index,
                    "goal": sp.goal,
                    "kind": "open scan" if sp.open_scan else "traversal",
                    "hops": " → ".join(sp.hops) or "(any)",
                    "anchors": ", ".join(sp.anchors) or "—",
                    "fallbacks": "; ".join(plan.fallbacks),
                }
            )
    return pd.DataFrame(rows, columns=PLAN_COLUMNS)


ATTEMPT_COLUMNS = [
    "pass",
    "subplan",
    "attempt",
    "refined",
    "templated",
    "cypher",
    "rows",
    "truncated",
    "error",
    "ms",
    "acceptable",
    "why",
    "bounded",
]


def attempt_rows(execution: CypherExecution) -> list[dict[str, Any]]:
    """One subplan's attempts, a row each (see :func:`attempts_table`)."""
    rows = []
    for i, att in enumerate(execution.attempts, start=1):
        q = att.query
        rows.append(
            {
                "pass": execution.pass_index,
                "subplan": execution.subplan_index,
                "attempt": i,
                "refined": att.refined,
                "templated": att.templated,
                "cypher": q.text,
                "rows": q.n_rows,
                "truncated": q.truncated,
                "error": q.error or "",
                "ms": round(float(q.ms or 0.0), 1),
                "acceptable": att.acceptable,
                "why": ACCEPTED_WHY if att.acceptable else att.reason,
                "bounded": q.rewritten or "",
            }
        )
    return rows


def attempts_table(trace: Trace) -> pd.DataFrame:
    """Every Cypher attempt: pass, subplan, attempt (refined or first; ``templated`` for the
    neighbourhood scan's schema template, which no model wrote), the query, what came back
    (rows, truncation, error, ms) and why it was or was not acceptable."""
    rows = [row for ex in payloads(trace, CypherExecution) for row in attempt_rows(ex)]
    return pd.DataFrame(rows, columns=ATTEMPT_COLUMNS)


def replay_table(results: Sequence[Any]) -> pd.DataFrame:
    """The witness replayed (``ReplayResult`` list): per query, whether the same rows came back."""
    rows = [
        {
            "query": r.query,
            "same rows": r.same,
            "rows recorded": r.rows_before,
            "rows now": r.rows_after,
            "error": r.error or "",
        }
        for r in results
    ]
    return pd.DataFrame(rows, columns=["query", "same rows", "rows recorded", "rows now", "error"])


#: ``stats`` keys shown side by side, in this order.
COMPARED = (
    "passes_used",
    "stop_reason",
    "cypher_queries",
    "valid_rate",
    "acceptable_rate",
    "first_acceptable_rate",
    "subplans",
    "subplans_accepted",
    "interface_size",
    "witness_nodes",
    "witness_edges",
    "witness_rows",
    *ORIGIN_COLUMNS,
    "cache_hit_share",
)


def family_comparison(answers: Mapping[str, Answer], gold: Sequence[str] = ()) -> pd.DataFrame:
    """One column per graph: the answer, its context size, LLM calls and the per-question stats."""
    table = {}
    for name, ans in answers.items():
        found = details(ans)
        stats = found.stats if found is not None else {}
        column: dict[str, Any] = {"answer": ans.text}
        if gold:
            column["gold"] = " | ".join(gold)
        column["context items"] = len(ans.context.evidence)
        column["llm calls"] = len(ans.trace.llm_calls)
        column |= {k: stats.get(k) for k in COMPARED}
        table[name] = column
    return pd.DataFrame(table)
