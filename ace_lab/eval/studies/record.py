"""One answered question as a JSON-able record: the answer, its scores, context coverage, cost.

:func:`record` is what :func:`ace_lab.eval.studies.runner.run` appends to a study's results file for
each question, and what every table (``ace_lab.eval.reporting.tables``) reads back; its keys are the
columns of the results frame, with ``position``, ``method``, ``model_identity`` and
``config_hash`` added by the runner (:mod:`ace_lab.eval.studies.identity`). Its scores are the
rows of the metrics table (:mod:`ace_lab.eval.metrics.table`), which :func:`record` writes after
the record's own fields and :func:`with_metrics` completes for records written before a row
existed, from what the records and the study's data set hold.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.data import DataError, Passage, Question, Slice, load_slice
from ace_lab.eval.metrics import answer_in_context, is_yes_no
from ace_lab.eval.metrics.table import METRICS, RecordInput, record_columns
from ace_lab.evidence import Answer, Context, Evidence
from ace_lab.methods.reader import reader_of_tags
from ace_lab.steps import AnswerDetails, StepPayload, from_record, to_record

log = logging.getLogger(__name__)


def _has_answer(items: Iterable[Evidence], golds: list[str], yes_no: bool) -> bool | None:
    """Gold in the rendered context; None where coverage is undefined (yes/no, no gold)."""
    if yes_no or not golds:
        return None
    return answer_in_context(Context(list(items)).render(), golds)


def record(
    question: Question,
    answer: Answer,
    *,
    evidence_only: bool = False,
    passages: Mapping[str, Passage] | None = None,
) -> dict[str, Any]:
    """One question's JSON-able result: answer, scores, context coverage and cost.

    Scores are None when the question has no gold answer (pairwise-judged sets), so a mean
    over a column never counts them as zeros. ``input_tokens``/``output_tokens`` are the
    cold-cache cost (``response_*`` tokens): a cache hit reports what the call cost the model
    when it was first made, so cost tables do not depend on cache state. ``llm_s`` is a
    plain sum of the latencies of calls that reached the model; calls made in parallel
    overlap, so it can exceed ``wall_s`` and is not "LLM share of wall time" by itself.
    ``server_cached_tokens`` counts input tokens the LLM server reused from its own prompt
    cache (a warm ``wall_s``; see :func:`ace_lab.eval.reporting.tables.cost_table`).
    ``base_has_answer`` is the same coverage check on the evidence of the method's first
    retrieval step (ACE's C_base), read from the trace; None for methods that never refine it
    (one retrieval step): the pair gives Table 5's coverage and recovery.
    ``cold_wall_s`` is the wall time with an empty response cache (``Trace.cold_wall_s``).
    A method's own columns come from its typed details (``AnswerDetails.columns()``), so a
    baseline's record has none of ACE's; ``details`` and each step row's ``payload`` keep the
    typed values whole (``{"type", "v", ...}``; read back with :func:`record_details` and
    :func:`step_payloads`).
    The scores follow the record's own fields: one column per row of the metrics table
    (:func:`~ace_lab.eval.metrics.table.record_columns`: EM and F1, context size, the two
    recalls, the evidence metrics), each computed from the fields above, the question and the
    live answer. The evidence metrics read the question's ``extra``; ``passages`` (id → the
    slice's passage) gives a HotpotQA supporting sentence its text, without which only its
    passage whole in the context finds it.
    ``evidence_only``: the run stopped before the answer call
    (:func:`ace_lab.methods.generate.evidence_only`), so ``answer``, ``raw``, ``em`` and ``f1``
    are None and the record measures the context alone.
    """
    golds = list(question.answers)
    yes_no = is_yes_no(golds)
    summary = answer.trace.summary()
    calls = answer.trace.llm_calls
    evidence = list(answer.context.evidence)
    base = answer.trace.first_retrieval() if answer.trace.refined else None
    rec = {
        "id": question.id,
        "question": question.question,
        "type": question.type,
        "gold": golds,
        "answer": None if evidence_only else answer.text,
        "raw": None if evidence_only else answer.raw,
        # which answer call read the context (ace_lab.methods.reader): tables name it per row
        "reader": None if evidence_only else reader_of_tags(c.tag for c in calls),
        "evidence_only": evidence_only,
        "yes_no": yes_no,
        "context_ids": [e.id for e in evidence],
        # the text each context item had, so a judge reading the context (GraphRAG-Bench's
        # evidence recall, context relevancy) never depends on a graph rebuilt since the run
        "context_texts": [e.text for e in evidence],
        "context_has_answer": _has_answer(evidence, golds, yes_no),
        "base_has_answer": None if base is None else _has_answer(base, golds, yes_no),
        "supporting_ids": list(question.supporting_ids),
        "method": answer.method,
        # the columns the method owns (ACE: policy, topology, router, plan; ArcRAG and MOSAIC:
        # their per-question stats), and its typed details whole
        **(answer.details.columns() if answer.details is not None else {}),
        "details": None if answer.details is None else to_record(answer.details),
        "retrieval_calls": answer.retrieval_calls,
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
                # what the step's calls cost the model, cached or not (where tokens go)
                "prompt_tokens": sum(c.response_prompt_tokens for c in s.llm_calls),
                "completion_tokens": sum(c.response_completion_tokens for c in s.llm_calls),
                "payload": None if s.payload is None else to_record(s.payload),
            }
            for s in answer.trace.steps
        ],
    }
    return rec | record_columns(RecordInput(rec, question, passages or {}, answer))


def step_payloads(rec: Mapping[str, Any]) -> list[StepPayload | None]:
    """The typed payload of each step row of a record, in order; None for a step without one
    (a record written before payloads, or a type or version this package does not know)."""
    steps = rec.get("steps")
    if not isinstance(steps, list | tuple):
        return []
    return [from_record(s.get("payload")) if isinstance(s, Mapping) else None for s in steps]


def record_details(rec: Mapping[str, Any]) -> AnswerDetails | None:
    """A record's typed answer details; None for a record written before details existed."""
    details = from_record(rec.get("details"))
    return details if isinstance(details, AnswerDetails) else None


# --------------------------------------------------------------------- completing old records
def study_slice(directory: Path, lost: str = "slice unavailable") -> Slice | None:
    """The slice a study's ``manifest.json`` names (``dataset``, ``n``, ``seed``; from the full
    set or its committed slice file); None when it names no data set, and None with a warning
    (``lost``: what is left empty) when the manifest or the slice cannot be read."""
    path = Path(directory) / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        dataset = manifest.get("dataset")
        if not dataset:
            return None
        n = int(manifest["n"]) if manifest.get("n") else None
        return load_slice(dataset, n, seed=int(manifest.get("seed") or 0))
    except (OSError, ValueError, KeyError, DataError) as exc:  # DataError is a ValueError
        log.warning("%s: %s: %s", path, lost, exc)
        return None


def with_metrics(frame: pd.DataFrame, directory: Path | None = None) -> pd.DataFrame:
    """``frame`` with every row of the metrics table (:mod:`ace_lab.eval.metrics.table`) that a
    record read back can lack; values a record holds are kept, and the files are never
    rewritten.

    A row with an ``older`` column that a stored record cannot recompute takes its missing
    values from it (``support_recall`` is provenance recall). A ``stored`` row's missing values
    are computed by its ``of`` from the record (its ``context_texts``, ``context_ids``,
    ``gold``, ``supporting_ids``, step rows) and, from the slice ``directory``'s manifest names
    (read only when a record needs one), its question (``extra``, supporting passages) and the
    passages (a HotpotQA sentence's text; the text of a context of whole passages whose record
    kept no ``context_texts``). A stored row's column comes back numeric, or for a ``boolean``
    row with its true / false / None.
    """
    if frame.empty or "id" not in frame:
        return frame
    frame = frame.copy()
    rows = [m for m in METRICS.values() if not m.needs_judge]
    for metric in rows:
        if metric.older in frame and not metric.stored:
            frame[metric.name] = metric.values(frame)
    stored = [m for m in rows if m.stored]
    for metric in stored:
        column = metric.name
        frame[column] = frame[column].astype(object) if column in frame else None
    todo = frame[[m.name for m in stored]].isna().any(axis=1)
    if todo.any():
        lost = "questions and passages unavailable, metrics that read them left empty"
        sl = study_slice(directory, lost) if directory is not None else None
        questions = {} if sl is None else {q.id: q for q in sl.questions}
        passages = {} if sl is None else {p.id: p for p in sl.passages}
        inputs = [
            RecordInput(r, questions.get(r["id"]), passages)
            for r in frame.loc[todo].to_dict("records")
        ]
        for metric in stored:
            held = frame.loc[todo, metric.name]
            values = [
                v if pd.notna(v) else metric.value(x) for v, x in zip(held, inputs, strict=True)
            ]
            frame.loc[todo, metric.name] = pd.Series(values, index=held.index, dtype=object)
    for metric in stored:
        if not metric.boolean:
            frame[metric.name] = pd.to_numeric(frame[metric.name], errors="coerce")
    return frame
