"""GraphRAG-Bench's LLM-judged answer metrics: Answer Correctness and Coverage, each with the
judge's verdict per statement (the judge's request helper and statement splitter are shared
with :mod:`ace_lab.eval.graphragbench.attribution`: Evidence Recall, Context Relevancy and
Faithfulness).

Each follows the benchmark's public evaluation code, GraphRAG-Bench/GraphRAG-Benchmark
``Evaluation/metrics/`` (``answer_accuracy.py`` at commit 91ccd13, ``evidence_recall.py`` and
``context_relevance.py`` at d213976; ``coverage.py``, imported by its ``generation_eval.py`` but
not in the copy we could read, as carried by the fork yishanyuan/25Fall-GraphRAG-Bench), with its
prompts rewritten as ``ace_lab/prompts/grb_*.txt`` and the judge being the configured ace_lab
:class:`~ace_lab.llm.LLM` (JSON-schema output, retries, cache). Every result names the judge
model (and the embedding model where one is used).

**Answer Correctness** (``answer_accuracy.py``, ``compute_answer_correctness``):
``ACC = 0.75 · factuality + 0.25 · similarity``. Both the answer and the ground truth are split
into statements by the judge (``grb_statements``); the judge then classifies them as TP / FP / FN
(``grb_correctness``) and ``factuality = F1(TP, FP, FN)`` with the reference's 1e-10 smoothing
(:func:`fbeta`). Two empty statement lists give factuality 1.0; an unusable classification gives
0.0 (the reference's ``except`` branch; an empty classification scores 0 there as well).
``similarity = (cos(e_answer, e_truth) + 1) / 2`` over the two texts' embeddings.

**Coverage** (``coverage.py``, ``compute_coverage_score``; Contextual Summarize and Creative
Generation): the judge lists the facts of the ground truth (cut to 3,000 characters,
``grb_coverage_facts``), then labels each covered (1) or not (0) by the answer (cut to 3,000
characters, ``grb_coverage``); coverage = covered / labelled. An empty ground truth gives 1.0; no
facts, or no valid label, gives NaN. The reference tries these two calls three times each.

Every result carries ``verdicts``: one ``{"statement", "verdict", "reason"}`` per judged item
(ACC: each statement's class TP / FP / FN; Coverage: each reference fact's 1 / 0), so a stored
number can be audited statement by statement.

Deviations, all forced by the JSON-schema judge or chosen for determinism:

* statements are asked for as ``{"statements": [...]}`` rather than a bare list, and a failed
  statement call gives an empty list (the reference's parser fallback does the same); an empty
  text gets no statement call at all;
* the reference repairs malformed JSON with json5/json_repair; here the structured-output retry
  does (``attempts`` calls, then the documented default), and every fallback is listed in the
  result's ``fallbacks``;
* the evidence goes to the judge as a JSON list of the statements
  (:func:`ace_lab.data.graphragbench.split_evidence`); the reference formats the data set's
  ``evidence`` field into the prompt as it is;
* embeddings come from the configured :mod:`ace_lab.embed` model (the reference uses
  ``BAAI/bge-large-en-v1.5``), so similarities are on another scale.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from ace_lab.embed import Embedder, embed, get_embedder
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

#: Weights of factuality and semantic similarity in Answer Correctness (the reference's).
ACC_WEIGHTS = (0.75, 0.25)
#: Judge calls per request before the documented default (the reference's ``max_retries``).
ATTEMPTS = 2
#: Coverage's attempts and text cut (the reference: ``max_retries + 1`` tries, 3,000 chars).
COVERAGE_ATTEMPTS = 3
COVERAGE_CHARS = 3_000
NAN = float("nan")


class Statements(BaseModel):
    statements: list[str] = Field(default_factory=list)


class Classified(BaseModel):
    statement: str
    reason: str = ""


class Classification(BaseModel):
    TP: list[Classified] = Field(default_factory=list)
    FP: list[Classified] = Field(default_factory=list)
    FN: list[Classified] = Field(default_factory=list)


class Facts(BaseModel):
    facts: list[str] = Field(default_factory=list)


class Covered(BaseModel):
    statement: str
    attributed: int


class Coverage(BaseModel):
    classifications: list[Covered] = Field(default_factory=list)


def fbeta(tp: int, fp: int, fn: int, beta: float = 1.0) -> float:
    """The reference's smoothed F-beta (``answer_accuracy.fbeta_score``)."""
    precision = tp / (tp + fp + 1e-10)
    recall = tp / (tp + fn + 1e-10)
    return (1 + beta**2) * (precision * recall) / ((beta**2 * precision) + recall + 1e-10)


def ask_json(
    llm: LLM,
    prompt: str,
    schema: type[BaseModel],
    default: Any,
    *,
    seed: int = 0,
    max_tokens: int = 1024,
    attempts: int = ATTEMPTS,
    **variables: str,
) -> tuple[Any, bool]:
    """One judge request, tagged ``grb.<prompt>``: (value, whether it fell back to default)."""
    result = llm.json(
        load_prompt(prompt).messages(**variables),
        schema,
        tag=prompt.replace("grb_", "grb."),
        default=default,
        attempts=attempts,
        temperature=0.0,
        max_tokens=max_tokens,
        seed=seed,
    )
    return result.value, result.fallback


def statements(llm: LLM, question: str, text: str) -> tuple[list[str], bool]:
    """The judge's statements of ``text`` and whether the call fell back (to none)."""
    if not text.strip():
        return [], False
    value, fallback = ask_json(
        llm,
        "grb_statements",
        Statements,
        Statements(),
        question=question,
        answer=text,
    )
    return [s.strip() for s in value.statements if s.strip()], fallback


def semantic_similarity(answer: str, ground_truth: str, embedder: Embedder | None = None) -> float:
    """``(cos + 1) / 2`` of the two texts' embeddings (unit rows, so cos is a dot product)."""
    vectors = embed([answer, ground_truth], embedder, progress=False)
    # float32 rounding puts the dot product of two equal unit rows a hair above 1
    cosine = float(np.clip(np.dot(vectors[0], vectors[1]), -1.0, 1.0))
    return (cosine + 1.0) / 2.0


def answer_correctness(
    llm: LLM,
    question: str,
    answer: str,
    ground_truth: str,
    embedder: Embedder | None = None,
    weights: tuple[float, float] = ACC_WEIGHTS,
) -> dict[str, Any]:
    """ACC and its parts (module docstring); ``fallbacks`` names the judge calls that failed."""
    fallbacks = []
    answer_st, failed = statements(llm, question, answer)
    fallbacks += ["answer_statements"] if failed else []
    truth_st, failed = statements(llm, question, ground_truth)
    fallbacks += ["truth_statements"] if failed else []
    tp = fp = fn = 0
    verdicts: list[dict[str, Any]] = []
    if weights[0] == 0:
        factuality = 0.0
    elif not answer_st and not truth_st:
        factuality = 1.0
    else:
        verdict, failed = ask_json(
            llm,
            "grb_correctness",
            Classification,
            Classification(),
            question=question,
            answer=json.dumps(answer_st, ensure_ascii=False),
            ground_truth=json.dumps(truth_st, ensure_ascii=False),
        )
        fallbacks += ["classification"] if failed else []
        tp, fp, fn = len(verdict.TP), len(verdict.FP), len(verdict.FN)
        verdicts = [
            {"statement": item.statement, "verdict": label, "reason": item.reason}
            for label, items in (("TP", verdict.TP), ("FP", verdict.FP), ("FN", verdict.FN))
            for item in items
        ]
        factuality = 0.0 if failed else fbeta(tp, fp, fn)
    similarity, model = 0.0, None
    if weights[1] != 0:
        embedder = embedder if embedder is not None else get_embedder()
        similarity, model = semantic_similarity(answer, ground_truth, embedder), embedder.model_id
    return {
        "answer_correctness": float(np.average([factuality, similarity], weights=weights)),
        "factuality": factuality,
        "semantic_similarity": similarity,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "answer_statements": len(answer_st),
        "truth_statements": len(truth_st),
        "verdicts": verdicts,
        "fallbacks": fallbacks,
        "judge_model": llm.model,
        "embed_model": model,
    }


def coverage_score(llm: LLM, question: str, answer: str, ground_truth: str) -> dict[str, Any]:
    """Share of the ground truth's facts (as the judge lists them) that the answer covers."""
    out: dict[str, Any] = {"judge_model": llm.model, "fallbacks": [], "facts": 0, "labelled": 0}
    out["verdicts"] = []
    if not ground_truth.strip():
        return {**out, "coverage_score": 1.0}
    listed, failed = ask_json(
        llm,
        "grb_coverage_facts",
        Facts,
        Facts(),
        attempts=COVERAGE_ATTEMPTS,
        question=question,
        reference=ground_truth[:COVERAGE_CHARS],
    )
    facts = [f.strip() for f in listed.facts if f.strip()]
    fallbacks = ["facts"] if failed else []
    if not facts:
        return {**out, "coverage_score": NAN, "fallbacks": fallbacks}
    value, failed = ask_json(
        llm,
        "grb_coverage",
        Coverage,
        Coverage(),
        attempts=COVERAGE_ATTEMPTS,
        question=question,
        response=answer[:COVERAGE_CHARS],
        facts=json.dumps(facts, ensure_ascii=False),
    )
    fallbacks += ["coverage"] if failed else []
    valid = [c.attributed for c in value.classifications if c.attributed in (0, 1)]
    score = sum(valid) / len(valid) if valid else NAN
    return {
        **out,
        "coverage_score": score,
        "facts": len(facts),
        "labelled": len(valid),
        "fallbacks": fallbacks,
        "verdicts": [
            {"statement": c.statement, "verdict": c.attributed, "reason": ""}
            for c in value.classifications
        ],
    }
