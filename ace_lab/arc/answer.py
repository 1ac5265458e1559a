"""Answer: compose the context from the witness, and judge whether the answer is sufficient.

Algorithm 1, lines 23–25. The graph's provenance decides what the answer model reads, not a
setting: on a chunk-backed graph, the source passages of the witness edges (and passage nodes
the witness holds), in the order they were found; otherwise the witness edges and rows as text.
A scalar row on a chunk-backed graph (``RETURN n.name``) has no passage behind it but is what
an acceptable query answered, so it goes first, as text. When the witness holds no passage on
a chunk-backed graph, the pass's retrieved passages are used instead (``meta["fallback"]``),
so the answer model is never given nothing while the retrieval found text. The sufficiency
judgement returns ok, or a follow-up question that seeds the next pass; an unusable judgement
counts as "no follow-up" and ends the loop.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ace_lab.arc.schema import StoreSchema
from ace_lab.arc.witness import Witness, WitnessElement
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Evidence, fit_budget
from ace_lab.graph.names import bounded_str
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

BRANCH = "arc"


class Sufficiency(BaseModel):
    sufficient: bool = True
    missing: bounded_str(400) = ""
    follow_up: bounded_str(400) = ""


def _passage(graph: Any, chunk_id: str, round_: int, **meta: Any) -> Evidence | None:
    if chunk_id in graph.nodes:
        item = graph.passage_evidence(chunk_id)
    else:
        index = graph.indexes.get("passages")
        if index is None or chunk_id not in index:
            return None
        item = Evidence(chunk_id, "passage", index.text(chunk_id), source_ids=(chunk_id,))
    return Evidence(
        item.id,
        item.kind,
        item.text,
        item.level,
        item.source_ids,
        BRANCH,
        round_,
        item.score,
        {**item.meta, **meta},
    )


def compose(
    graph: Any,
    schema: StoreSchema,
    witness: Witness,
    fallback_ids: tuple[str, ...],
    budget_tokens: int | None = CONTEXT_BUDGET_TOKENS,
) -> list[Evidence]:
    """``Z``: scalar rows, then the witness passages (chunk-backed graphs), or its edges and
    rows as text; within the budget."""
    if not schema.chunk_backed:
        return fit_budget([_row(el) for el in witness.edges + witness.rows], budget_tokens)
    first_pass: dict[str, tuple[int, str]] = {}
    for e in witness.edges:
        for p in e.provenance:
            first_pass.setdefault(p, (e.pass_, e.query))
    if schema.passage_label:
        for n in witness.nodes:
            if schema.passage_label in n.labels:
                first_pass.setdefault(n.key, (n.pass_, n.query))
    passages = [
        item
        for cid, (round_, query) in first_pass.items()
        if (item := _passage(graph, cid, round_, witness_query=query)) is not None
    ]
    if not passages:
        passages = [
            item
            for cid in fallback_ids
            if (item := _passage(graph, cid, 0, fallback="retrieved passages")) is not None
        ]
    return fit_budget([_row(el) for el in witness.rows] + passages, budget_tokens)


def _row(el: WitnessElement) -> Evidence:
    return Evidence(
        f"w:{el.kind}:{el.key}",
        "row",
        el.text,
        branch=BRANCH,
        round=el.pass_,
        meta={"witness_query": el.query, "nodes": tuple(k for k in (el.source, el.target) if k)},
    )


def sufficient(llm: LLM, question: str, answer: str, context: str) -> tuple[bool, str, bool]:
    """``(ok, follow_up, fallback)``; an unusable reply is ``(True, "", True)``: stop."""
    result = llm.json(
        load_prompt("arc_sufficient").messages(
            question=question, answer=answer or "(no answer)", context=context or "(none)"
        ),
        Sufficiency,
        tag="arc.sufficient",
        default=Sufficiency(),
        max_tokens=300,
    )
    value = result.value
    follow = value.follow_up.strip()
    return value.sufficient or not follow, ("" if value.sufficient else follow), result.fallback
