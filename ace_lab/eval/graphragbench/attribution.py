"""GraphRAG-Bench's metrics that judge text against the retrieved context: Evidence Recall,
Context Relevancy and Faithfulness, each with the judge's verdict per statement.

Each follows the benchmark's public evaluation code (GraphRAG-Bench/GraphRAG-Benchmark
``Evaluation/metrics/``: ``evidence_recall.py`` and ``context_relevance.py`` at d213976;
``faithfulness.py``, imported by its ``generation_eval.py`` but read in the copy the fork
yishanyuan/25Fall-GraphRAG-Bench carries), with the prompts rewritten as
``ace_lab/prompts/grb_*.txt`` and the configured ace_lab :class:`~ace_lab.llm.LLM` as judge.

**Evidence Recall** (``evidence_recall.py``): the contexts joined by newlines and cut to 20,000
characters, the gold evidence statements and the question go to the judge
(``grb_evidence_recall``), which labels each statement attributed (1) or not (0); recall =
attributed / labelled items. Items without a 0/1 ``attributed`` are dropped; no valid item after
the attempts gives NaN; an empty context gives 0.0.

**Context Relevancy** (``context_relevance.py``): the judge rates the joined contexts (cut to
20,000 characters) 0, 1 or 2 for the question (``grb_context_relevance``) twice; the score is the
mean of the valid ratings / 2, NaN if neither is valid, 0.0 for a blank question or context and
for a context that is the question (or a part of it). The reference's second rating repeats the
same request; here it uses the next seed, so a cached judge still gives two draws.

**Faithfulness** (``faithfulness.py``, Creative Generation): the answer (cut to 3,000 characters,
the question to 500) is split into statements by the judge (``grb_statements``, the prompt ACC
uses, so its call is shared when the texts are), then the judge gives each statement verdict 1
if it can be directly inferred from the joined contexts (cut to 10,000 characters; the statement
list's JSON to 5,000) and 0 otherwise (``grb_faithfulness``); faithfulness = supported / judged.
No statement gives 1.0 for an empty answer and NaN otherwise; an empty context gives 0.0; no
valid verdict gives NaN.

Every result carries ``verdicts``: one ``{"statement", "verdict", "reason"}`` per judged item
(the relevance ratings as ``rating 1`` / ``rating 2`` of the joined context), so a stored number
can be audited statement by statement.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from ace_lab.eval.graphragbench.judge import NAN, ask_json, statements
from ace_lab.llm import LLM

#: Context characters the retrieval judges read (the reference truncates to 20,000).
MAX_CONTEXT_CHARS = 20_000
#: Faithfulness's cuts (the reference's): question, answer, context, statement list JSON.
FAITHFULNESS_CHARS = {"question": 500, "answer": 3_000, "context": 10_000, "statements": 5_000}


class Attribution(BaseModel):
    statement: str
    reason: str = ""
    attributed: int


class Attributions(BaseModel):
    classifications: list[Attribution] = Field(default_factory=list)


class Rating(BaseModel):
    score: float


class Verdict(BaseModel):
    statement: str
    reason: str = ""
    verdict: int


class Verdicts(BaseModel):
    classifications: list[Verdict] = Field(default_factory=list)


def joined(contexts: Sequence[str] | str) -> str:
    """The contexts as the reference hands them to the judge: one newline-joined text."""
    return contexts if isinstance(contexts, str) else "\n".join(contexts)


def verdict(statement: str, value: Any, reason: str = "") -> dict[str, Any]:
    """One stored per-statement verdict."""
    return {"statement": statement, "verdict": value, "reason": reason}


def evidence_recall(
    llm: LLM, question: str, contexts: Sequence[str] | str, evidence: Sequence[str]
) -> dict[str, Any]:
    """Share of the gold evidence statements the judge attributes to the contexts."""
    context = joined(contexts)
    out: dict[str, Any] = {"judge_model": llm.model, "fallbacks": [], "labelled": 0}
    if not context.strip():
        empty = [verdict(s, 0, "empty context") for s in evidence]
        return {**out, "evidence_recall": 0.0, "verdicts": empty}
    value, failed = ask_json(
        llm,
        "grb_evidence_recall",
        Attributions,
        Attributions(),
        context=context[:MAX_CONTEXT_CHARS],
        question=question,
        evidence=json.dumps(list(evidence), ensure_ascii=False),
    )
    labels = value.classifications
    valid = [c.attributed for c in labels if c.attributed in (0, 1)]
    recall = sum(valid) / len(valid) if valid else NAN
    return {
        **out,
        "evidence_recall": recall,
        "labelled": len(valid),
        "fallbacks": ["attribution"] if failed else [],
        "verdicts": [verdict(c.statement, c.attributed, c.reason) for c in labels],
    }


def context_relevance(llm: LLM, question: str, contexts: Sequence[str] | str) -> dict[str, Any]:
    """Mean of two 0–2 relevance ratings of the joined contexts, scaled to 0–1."""
    context = joined(contexts)
    out: dict[str, Any] = {"judge_model": llm.model, "fallbacks": [], "ratings": []}
    blank = not question.strip() or not context.strip()
    if blank or context.strip() == question.strip() or context.strip() in question:
        return {**out, "context_relevancy": 0.0, "verdicts": []}
    ratings: list[float | None] = []
    fallbacks = []
    for draw in range(2):
        value, failed = ask_json(
            llm,
            "grb_context_relevance",
            Rating,
            Rating(score=-1.0),
            question=question,
            context=context[:MAX_CONTEXT_CHARS],
            seed=draw,
            max_tokens=64,
        )
        valid = not failed and math.isfinite(value.score) and 0.0 <= value.score <= 2.0
        ratings.append(value.score if valid else None)
        fallbacks += [] if valid else [f"rating{draw + 1}"]
    scores = [r / 2 for r in ratings if r is not None]
    relevancy = sum(scores) / len(scores) if scores else NAN
    shown = f"the joined context ({len(context)} characters)"
    verdicts = [verdict(f"rating {i + 1} of {shown}", r) for i, r in enumerate(ratings)]
    return {
        **out,
        "context_relevancy": relevancy,
        "ratings": ratings,
        "fallbacks": fallbacks,
        "verdicts": verdicts,
    }


def faithfulness(
    llm: LLM, question: str, answer: str, contexts: Sequence[str] | str
) -> dict[str, Any]:
    """Share of the answer's statements the judge can directly infer from the contexts."""
    cut = FAITHFULNESS_CHARS
    out: dict[str, Any] = {"judge_model": llm.model, "fallbacks": [], "verdicts": []}
    found, failed = statements(llm, question[: cut["question"]], answer[: cut["answer"]])
    out["fallbacks"] = ["statements"] if failed else []
    if not found:
        return {**out, "faithfulness": 1.0 if not answer.strip() else NAN}
    context = joined(contexts)
    if not context.strip():
        return {
            **out,
            "faithfulness": 0.0,
            "verdicts": [verdict(s, 0, "empty context") for s in found],
        }
    value, failed = ask_json(
        llm,
        "grb_faithfulness",
        Verdicts,
        Verdicts(),
        context=context[: cut["context"]],
        statements=json.dumps(found, ensure_ascii=False)[: cut["statements"]],
    )
    out["fallbacks"] += ["verdicts"] if failed else []
    judged = [v for v in value.classifications if v.verdict in (0, 1)]
    score = sum(v.verdict for v in judged) / len(judged) if judged else NAN
    stored = [verdict(v.statement, v.verdict, v.reason) for v in value.classifications]
    return {**out, "faithfulness": score, "statements": len(found), "verdicts": stored}
