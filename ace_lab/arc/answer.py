"""Answer: compose the context from the witness, and judge whether the answer is sufficient.

Algorithm 1, lines 23–25. The graph's provenance decides what the answer model reads, not a
setting: on a chunk-backed graph, the source passages of the witness edges (and passage nodes
the witness holds), in the order they were found; otherwise the witness edges and rows as text.
A scalar row on a chunk-backed graph (``RETURN n.name``) has no passage behind it but is what
an acceptable query answered, so it goes first, as text. When the witness holds no passage on
a chunk-backed graph, the pass's retrieved passages are used instead (``meta["fallback"]``),
so the answer model is never given nothing while the retrieval found text; ``arcrag:strict``
(the paper's behaviour, ``ArcConfig.fallback`` off) passes no fallback ids, so an empty witness
answers from an empty context. The sufficiency judgement returns ok, or a follow-up question
that seeds the next pass; an unusable judgement counts as "no follow-up" and ends the loop.

Provenance of the context (:func:`context_provenance`): each composed item came from a
model-written query, from the neighbourhood-scan template (both through the witness query
that first found it) or from the fallback; the record's ``stats`` keep each origin's share of
the context's tokens and its item count.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ace_lab.arc.schema import StoreSchema
from ace_lab.arc.witness import Witness, WitnessElement
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Evidence, fit_budget
from ace_lab.graph.names import bounded_str
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

BRANCH = "arc"
#: The temperature the paper's answer model judges sufficiency at (Limitations: "the answer
#: model samples at temperature 1.0 and also judges whether its own evidence is sufficient").
PAPER_JUDGE_TEMPERATURE = 1.0
#: Where a context item came from, in the order the record's ``stats`` list them.
SOURCES = ("model", "template", "fallback")


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


def context_source(item: Evidence, templated: Collection[str]) -> str:
    """``"fallback"`` for a retrieved passage standing in for an empty witness, ``"template"``
    when the witness query that first found the item (``meta["witness_query"]``) is one of the
    ``templated`` query ids, else ``"model"`` (a model-written query found it)."""
    if item.meta.get("fallback"):
        return "fallback"
    return "template" if item.meta.get("witness_query") in templated else "model"


def context_provenance(items: Sequence[Evidence], templated: Collection[str]) -> dict[str, Any]:
    """``context_from_<source>``: the share of the context's item tokens (headers left out)
    from each of :data:`SOURCES`, to 4 places, summing to 1 for a non-empty context and all 0.0
    for an empty one (so their means over records sum to the share of answers that had any
    context); ``context_items_<source>``: how many items came from each."""
    tokens = dict.fromkeys(SOURCES, 0)
    counts = dict.fromkeys(SOURCES, 0)
    for item in items:
        source = context_source(item, templated)
        tokens[source] += item.tokens
        counts[source] += 1
    total = sum(tokens.values())
    shares = {s: round(tokens[s] / total, 4) if total else 0.0 for s in SOURCES}
    return {f"context_from_{s}": shares[s] for s in SOURCES} | {
        f"context_items_{s}": counts[s] for s in SOURCES
    }


def _row(el: WitnessElement) -> Evidence:
    return Evidence(
        f"w:{el.kind}:{el.key}",
        "row",
        el.text,
        branch=BRANCH,
        round=el.pass_,
        meta={"witness_query": el.query, "nodes": tuple(k for k in (el.source, el.target) if k)},
    )


@dataclass(frozen=True)
class Judgement:
    """One sufficiency judgement: ``ok`` stops the loop (the answer was judged sufficient, or
    no follow-up question was written: the paper's rule), ``follow_up`` seeds the next pass,
    ``fallback`` marks an unusable reply (which stops too) and ``said_sufficient`` is the
    verdict the model wrote (None for an unusable reply)."""

    ok: bool
    follow_up: str
    fallback: bool
    said_sufficient: bool | None


def sufficient(
    llm: LLM, question: str, answer: str, context: str, temperature: float = 0.0
) -> tuple[bool, str, bool]:
    """``(ok, follow_up, fallback)`` of :func:`judge_sufficiency`; an unusable reply is
    ``(True, "", True)``: stop."""
    judged = judge_sufficiency(llm, question, answer, context, temperature)
    return judged.ok, judged.follow_up, judged.fallback


def stop_reason(judged: Judgement) -> str:
    """Why a judgement that stops the loop stopped it: ``sufficient``, ``no follow-up`` (judged
    insufficient, but no question to ask) or ``judgement unusable``."""
    if judged.fallback:
        return "judgement unusable"
    return "no follow-up" if judged.said_sufficient is False else "sufficient"


def judge_sufficiency(
    llm: LLM, question: str, answer: str, context: str, temperature: float = 0.0
) -> Judgement:
    """Judge whether ``answer`` is supported by ``context``. ``temperature`` samples the
    judgement (0, the suite's default, is greedy; the paper's answer model judges at
    :data:`PAPER_JUDGE_TEMPERATURE`)."""
    result = llm.json(
        load_prompt("arc_sufficient").messages(
            question=question, answer=answer or "(no answer)", context=context or "(none)"
        ),
        Sufficiency,
        tag="arc.sufficient",
        default=Sufficiency(),
        temperature=temperature,
        max_tokens=300,
    )
    value = result.value
    follow = value.follow_up.strip()
    ok, said = value.sufficient or not follow, None if result.fallback else value.sufficient
    return Judgement(ok, "" if value.sufficient else follow, result.fallback, said)
