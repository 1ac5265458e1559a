"""One answered question as a JSON-able record: the answer, its scores, context coverage, cost.

:func:`record` is what :func:`ace_lab.eval.runner.run` appends to a study's results file for
each question, and what every table (``ace_lab.eval.tables``) reads back; its keys are the
columns of the results frame.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ace_lab.data import Question
from ace_lab.eval.metrics import (
    answer_in_context,
    exact_match,
    f1_score,
    is_yes_no,
    support_recall,
)
from ace_lab.evidence import Answer, Context, Evidence


def _has_answer(items: Iterable[Evidence], golds: list[str], yes_no: bool) -> bool | None:
    """Gold in the rendered context; None where coverage is undefined (yes/no, no gold)."""
    if yes_no or not golds:
        return None
    return answer_in_context(Context(list(items)).render(), golds)


def record(question: Question, answer: Answer) -> dict[str, Any]:
    """One question's JSON-able result: answer, scores, context coverage and cost.

    Scores are None when the question has no gold answer (pairwise-judged sets), so a mean
    over a column never counts them as zeros. ``input_tokens``/``output_tokens`` are the
    cold-cache cost (``response_*`` tokens): a cache hit reports what the call cost the model
    when it was first made, so cost tables do not depend on cache state. ``llm_s`` is a
    plain sum of the latencies of calls that reached the model; calls made in parallel
    overlap, so it can exceed ``wall_s`` and is not "LLM share of wall time" by itself.
    ``server_cached_tokens`` counts input tokens the LLM server reused from its own prompt
    cache (a warm ``wall_s``; see :func:`ace_lab.eval.tables.cost_table`).
    ``base_has_answer`` is the same coverage check on the evidence of the method's first
    retrieval step (ACE's C_base), read from the trace; None for methods that never refine it
    (one retrieval step): the pair gives Table 5's coverage and recovery.
    ``cold_wall_s`` is the wall time with an empty response cache (``Trace.cold_wall_s``).
    """
    golds = list(question.answers)
    yes_no = is_yes_no(golds)
    meta = answer.meta
    summary = answer.trace.summary()
    calls = answer.trace.llm_calls
    evidence = list(answer.context.evidence)
    base = answer.trace.first_retrieval() if answer.trace.refined else None
    has_gold = bool(golds)
    return {
        "id": question.id,
        "question": question.question,
        "type": question.type,
        "gold": golds,
        "answer": answer.text,
        "raw": meta.get("raw"),
        "em": exact_match(answer.text, golds) if has_gold else None,
        "f1": f1_score(answer.text, golds) if has_gold else None,
        "yes_no": yes_no,
        "context_tokens": answer.context.tokens,
        "context_ids": [e.id for e in evidence],
        "context_has_answer": _has_answer(evidence, golds, yes_no),
        "base_has_answer": None if base is None else _has_answer(base, golds, yes_no),
        "support_recall": support_recall(
            [sid for e in evidence for sid in e.source_ids], question.supporting_ids
        ),
        "method": meta.get("method"),
        "policy": meta.get("policy"),
        "topology": meta.get("topology"),
        "plan": meta.get("plan"),
        "retrieval_calls": meta.get("retrieval_calls"),
        "llm_calls": summary["llm_calls"],
        "model_calls": summary["model_calls"],
        "cache_hits": summary["cache_hits"],
        "input_tokens": summary["response_prompt_tokens"],
        "output_tokens": summary["response_completion_tokens"],
        "server_cached_tokens": summary["server_cached_tokens"],
        "wall_s": summary["wall_s"],
        "cold_wall_s": answer.trace.cold_wall_s,
        "llm_s": round(sum(c.latency_s for c in calls if not c.cache_hit), 4),
        "steps": [
            {
                "name": s.name,
                "elapsed": round(s.elapsed, 4),
                "llm_calls": len(s.llm_calls),
                "llm_s": round(sum(c.latency_s for c in s.llm_calls if not c.cache_hit), 4),
            }
            for s in answer.trace.steps
        ],
    }
