"""ArcRAG's tables for notebook 04, read from ``answer.trace`` and ``answer.meta`` alone.

- :func:`schema_side_by_side`: ``S_G`` of several graphs (one column per family): names with
  counts, the inferred identifier and name keys, where relations live, provenance;
- :func:`retrieval_table` / :func:`chunk_scope`: per pass, each search phrase with its hits,
  the anchors it named or the gap it left, and the passage ids that scope later queries;
- :func:`plan_table`: per pass, the answer type and the ordered subplans with their anchors;
- :func:`attempts_table`: every Cypher attempt of every subplan with what came back and why it
  was or was not acceptable;
- :func:`replay_table` (the witness replayed) and :func:`family_comparison` (one question on
  several graphs, from ``meta["stats"]``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ace_lab.evidence import Answer, Trace

#: What an acceptable attempt satisfied (Table 3's check), spelled out for the table.
ACCEPTED_WHY = "ran within the timeout and row cap, returned rows holding the answer type"
_PASS = re.compile(r":p(\d+)")


def pass_of(step_name: str) -> int:
    """The pass a step belongs to (``retrieve:p2`` → 2; 0 for steps outside the loop)."""
    m = _PASS.search(step_name)
    return int(m.group(1)) if m else 0


def steps_of(trace: Trace, prefix: str) -> list[Any]:
    """The steps whose name starts with ``prefix`` (e.g. ``"cypher:"``), in trace order."""
    return [s for s in trace.steps if s.name.startswith(prefix)]


def schema_of(trace: Trace) -> dict[str, Any]:
    """``S_G`` as the trace's ``schema`` step recorded it ({} when there is none)."""
    step = trace.find("schema")
    return dict(step.outputs.get("schema", {})) if step is not None else {}


def _counts(named: Mapping[str, int]) -> str:
    return ", ".join(f"{k} ({v})" for k, v in named.items()) or "—"


def _schema_column(s: Mapping[str, Any], patterns: int) -> dict[str, str]:
    ident = s.get("key") or "id()"
    relations = s.get("relation_property")
    provenance = s.get("provenance_property")
    sigs = [f"({a})-[{r}]->({b}) ×{c}" for a, r, b, c in s.get("signatures", [])]
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
        "patterns": f"{len(sigs)}: " + "; ".join(sigs[:patterns]) + (" …" if len(sigs) > patterns
                                                                     else ""),
    }  # fmt: skip


def schema_side_by_side(traces: Mapping[str, Trace], patterns: int = 4) -> pd.DataFrame:
    """One row per facet of ``S_G``, one column per graph (``family → trace``)."""
    return pd.DataFrame(
        {name: _schema_column(schema_of(t), patterns) for name, t in traces.items()}
    )


def retrieval_table(trace: Trace) -> pd.DataFrame:
    """Per pass and search phrase: the index hits, the anchors the phrase named, or a gap."""
    rows = []
    for step in steps_of(trace, "retrieve:"):
        out = step.outputs
        for phrase in out.get("phrases", ()):
            hits = out.get("hits", {}).get(phrase, [])
            named = [a for a in out.get("anchors", ()) if a["phrase"] == phrase]
            rows.append({
                "pass": pass_of(step.name), "phrase": phrase, "store": out.get("store"),
                "hits": len(hits), "top hits": ", ".join(str(h[0]) for h in hits[:3]),
                "anchors": "; ".join(f"{a['text']} [{a['key']}]" for a in named) or "—",
                "gap": phrase in out.get("gaps", ()),
            })  # fmt: skip
    columns = ["pass", "phrase", "store", "hits", "top hits", "anchors", "gap"]
    return pd.DataFrame(rows, columns=columns)


def chunk_scope(trace: Trace) -> pd.DataFrame:
    """Per pass: which text store seeded it and the passage ids later queries were scoped to
    (none on graphs whose edges do not point to passages)."""
    rows = [
        {"pass": pass_of(s.name), "store": s.outputs.get("store"),
         "chunk ids": len(s.outputs.get("chunk_ids", ())),
         "scope": ", ".join(map(str, s.outputs.get("chunk_ids", ()))) or "(not chunk-backed)"}
        for s in steps_of(trace, "retrieve:")
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["pass", "store", "chunk ids", "scope"])


def plan_table(answer: Answer) -> pd.DataFrame:
    """Per pass: the question it answered, the answer type and each subplan in order."""
    rows = []
    for record in answer.meta.get("passes", []):
        plan = record.get("plan", {})
        fallbacks = "; ".join(plan.get("fallbacks", ())) or ""
        for sp in plan.get("subplans", ()):
            rows.append({
                "pass": record.get("pass"), "query": record.get("query"),
                "answer type": plan.get("answer_type"), "subplan": sp.get("index"),
                "goal": sp.get("goal"), "kind": "open scan" if sp.get("open_scan") else "traversal",
                "hops": " → ".join(sp.get("hops", ())) or "(any)",
                "anchors": ", ".join(sp.get("anchors", ())) or "—", "fallbacks": fallbacks,
            })  # fmt: skip
    columns = ["pass", "query", "answer type", "subplan", "goal", "kind", "hops", "anchors",
               "fallbacks"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def attempts_table(trace: Trace) -> pd.DataFrame:
    """Every Cypher attempt: pass, subplan, attempt (refined or first; ``templated`` for the
    neighbourhood scan's schema template, which no model wrote), the query, what came back
    (rows, truncation, error, ms) and why it was or was not acceptable."""
    rows = []
    for step in steps_of(trace, "cypher:"):
        sub = int(step.name.rsplit(".s", 1)[-1]) if ".s" in step.name else 0
        for i, att in enumerate(step.outputs.get("attempts", ()), start=1):
            rec = att.get("cypher", {})
            rows.append({
                "pass": pass_of(step.name), "subplan": sub, "attempt": i,
                "refined": bool(att.get("refined")), "templated": bool(att.get("templated")),
                "cypher": rec.get("text", ""),
                "rows": rec.get("n_rows", len(rec.get("rows", ()))),
                "truncated": bool(rec.get("truncated")), "error": rec.get("error") or "",
                "ms": round(float(rec.get("ms") or 0.0), 1),
                "acceptable": bool(att.get("acceptable")),
                "why": ACCEPTED_WHY if att.get("acceptable") else att.get("reason", ""),
                "bounded": rec.get("rewritten") or "",
            })  # fmt: skip
    columns = ["pass", "subplan", "attempt", "refined", "templated", "cypher", "rows",
               "truncated", "error", "ms", "acceptable", "why", "bounded"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def replay_table(results: Sequence[Any]) -> pd.DataFrame:
    """The witness replayed (``ReplayResult`` list): per query, whether the same rows came back."""
    rows = [{"query": r.query, "same rows": r.same, "rows recorded": r.rows_before,
             "rows now": r.rows_after, "error": r.error or ""} for r in results]  # fmt: skip
    return pd.DataFrame(rows, columns=["query", "same rows", "rows recorded", "rows now", "error"])


#: ``meta["stats"]`` keys shown side by side, in this order.
COMPARED = ("passes_used", "stop_reason", "cypher_queries", "valid_rate", "acceptable_rate",
            "first_acceptable_rate", "subplans", "subplans_accepted", "interface_size",
            "witness_nodes", "witness_edges", "witness_rows", "cache_hit_share")  # fmt: skip


def family_comparison(answers: Mapping[str, Answer], gold: Sequence[str] = ()) -> pd.DataFrame:
    """One column per graph: the answer, its context size, LLM calls and the per-question stats."""
    table = {}
    for name, ans in answers.items():
        stats = ans.meta.get("stats", {})
        column: dict[str, Any] = {"answer": ans.text}
        if gold:
            column["gold"] = " | ".join(gold)
        column |= {"context items": len(ans.context.evidence),
                   "llm calls": len(ans.trace.llm_calls)}  # fmt: skip
        column |= {k: stats.get(k) for k in COMPARED}
        table[name] = column
    return pd.DataFrame(table)
