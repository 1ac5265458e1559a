"""Judge a study's answers on GraphRAG-Bench's metrics once and store each line as it finishes.

``score_study(study, methods)`` scores every answer of ``methods`` in ``<results_dir>/<study>/``
with :func:`ace_lab.eval.graphragbench.score_question` — the metrics of the question's type:
Answer Correctness, ROUGE-L (Fact Retrieval, Complex Reasoning), Coverage (Contextual
Summarize, Creative Generation), Faithfulness (Creative Generation), Evidence Recall and Context
Relevancy — and appends one JSON line per answer to the study's score file
(:data:`~ace_lab.eval.graphragbench.store.GRB_FILE`), with the judge's per-statement
``verdicts`` of each judged metric. The gold answer and evidence statements come from the
study's slice, the context texts from the record or the method's graph
(:mod:`ace_lab.eval.graphragbench.context`; each line says which, and how many context items had
no text). Every line names the judge model and identity and the embedding model.

A rerun skips answers already scored by the same judge and embedder on the same context, so
scoring resumes, and scores again an answer or context that changed (a method rerun).
``metrics`` scores a subset first (the judge calls are what a study costs: Context Relevancy
alone sends the whole context twice); each line lists the metrics it ``holds``, and a later run
with more metrics judges only the missing ones and writes one line that merges both. A judge
call that raised (:class:`~ace_lab.llm.LLMError`) is not written and is retried by the next
run; a judge call whose output was malformed falls back as the metric documents (listed in the
line's ``fallbacks``) and *is* written: it is the protocol's outcome, not a crash.

``add_rouge(study)`` adds ROUGE-L, which needs no model, to every stored line of a Fact
Retrieval or Complex Reasoning answer that lacks it, keeping the line's judge and embedder.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ace_lab.config import Settings, load_settings
from ace_lab.embed import Embedder, get_embedder
from ace_lab.eval.graphragbench.cells import CALIBRATED_AS
from ace_lab.eval.graphragbench.context import StudyContext
from ace_lab.eval.graphragbench.rouge import rouge_score
from ace_lab.eval.graphragbench.scoring import IMPLEMENTED, metrics_for, score_question
from ace_lab.eval.graphragbench.store import (
    GRB_FILE,
    SCORE_COLUMNS,
    answer_text,
    context_key,
    load_scores,
    record_key,
)
from ace_lab.eval.judging.identity import prompt_fingerprint
from ace_lab.eval.studies.study import load_results, study_dir, utc_now
from ace_lab.llm import LLM, LLMError, get_llm

log = logging.getLogger(__name__)


def _line(
    rec: dict[str, Any],
    row: dict[str, Any],
    llm: LLM,
    embed_model: str,
    recovered: Any,
    earlier: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The stored line of one scored answer; ``earlier`` (the answer's stored line, when this
    run judged only the metrics it lacked) supplies every metric it already held."""
    held = _held(earlier) if earlier else []
    fresh = [m for m in IMPLEMENTED if m in row]
    values = {m: (row.get(m) if m in fresh else (earlier or {}).get(m)) for m in IMPLEMENTED}
    detail = row if "answer_correctness" in fresh or not earlier else earlier
    return {
        "method": rec["method"],
        "id": rec["id"],
        "type": row["type"],
        "answer": answer_text(rec["answer"]),
        "context_key": context_key(rec.get("context_ids")),
        **values,
        "factuality": detail.get("factuality"),
        "semantic_similarity": detail.get("semantic_similarity"),
        "fallbacks": {**((earlier or {}).get("fallbacks") or {}), **row["fallbacks"]},
        "verdicts": {**_verdicts(earlier), **row.get("verdicts", {})},
        # the judge is named even for a question whose only metric needed none
        "judge_model": row["judge_model"] or (earlier or {}).get("judge_model") or llm.model,
        "judge_identity": llm.model_identity,
        "judge_prompts": {**((earlier or {}).get("judge_prompts") or {}), **prompts_of(fresh)},
        "embed_model": embed_model,
        "context_source": recovered.source,
        "context_items": len(recovered.texts),
        "context_missing": recovered.missing,
        "holds": [m for m in IMPLEMENTED if m in held or m in fresh],
        "scored": utc_now(),
    }


def m_as(metric: str) -> str:
    """The calibrated metric a GraphRAG-Bench metric's judge is recorded under."""
    return CALIBRATED_AS.get(metric, metric)


def prompts_of(metrics: Sequence[str]) -> dict[str, str]:
    """The prompt fingerprint of each judged metric of ``metrics``, by calibrated metric
    (:mod:`ace_lab.eval.judging.identity`): what a stored line records as ``judge_prompts``."""
    return {
        CALIBRATED_AS[m]: prompt_fingerprint(CALIBRATED_AS[m])
        for m in metrics
        if m in CALIBRATED_AS
    }


def _held(line: dict[str, Any]) -> list[str]:
    """The metrics a stored line holds (a line without ``holds``: every metric of its type)."""
    holds = line.get("holds")
    if isinstance(holds, list):
        return holds
    return metrics_for(line.get("type"))


def question_order(df: pd.DataFrame, per_type: int | None = None) -> list[str]:
    """The study's question ids taken one type at a time in turn (the first question of each
    type in slice order, then the second of each, ...), at most ``per_type`` of each type:
    a question-by-question run stopped early has covered every type it reached."""
    ordered = df.sort_values("position", kind="stable") if "position" in df else df
    queues: dict[str, list[str]] = {}
    for qid, qtype in dict(zip(ordered["id"], ordered["type"].fillna(""), strict=True)).items():
        queues.setdefault(qtype, []).append(qid)
    depth = max(map(len, queues.values()), default=0)
    if per_type is not None:
        depth = min(depth, per_type)
    return [ids[i] for i in range(depth) for ids in queues.values() if i < len(ids)]


def check_metrics(metrics: Sequence[str] | None) -> tuple[str, ...]:
    """``metrics`` validated against :data:`IMPLEMENTED` (None: all of them)."""
    if metrics is None:
        return IMPLEMENTED
    unknown = sorted(set(metrics) - set(IMPLEMENTED))
    if unknown or not metrics:
        named = f"unknown GraphRAG-Bench metric(s) {unknown}" if unknown else "no metric named"
        raise ValueError(f"{named}; choose from {IMPLEMENTED}")
    return tuple(m for m in IMPLEMENTED if m in metrics)


def score_study(
    study: str,
    methods: Sequence[str] | None = None,
    *,
    settings: Settings | None = None,
    llm: LLM | None = None,
    embedder: Embedder | None = None,
    metrics: Sequence[str] | None = None,
    ids: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Score the answers of ``methods`` (every method when None) to the questions ``ids``
    (every question when None) on ``metrics`` (every implemented one when None; each question
    only on those of its type) where this judge and embedder have not yet scored them on their
    current context, in the order of ``ids`` when given; returns the new lines
    (``attrs["errors"]``: answers whose judge call raised, not written; ``attrs["unknown"]``:
    records whose question is not in the study's slice, skipped)."""
    include = check_metrics(metrics)
    settings = settings or load_settings()
    df = load_results(study, settings)
    if methods is not None:
        df = df[df["method"].isin(list(methods))]
    if ids is not None:  # question by question, so a bounded run compares methods on the same
        order = {qid: i for i, qid in enumerate(ids)}
        df = df[df["id"].isin(order)].sort_values("id", key=lambda c: c.map(order), kind="stable")
    empty = pd.DataFrame(columns=SCORE_COLUMNS)
    empty.attrs.update(errors=0, unknown=0)
    if df.empty:
        return empty
    llm = llm or get_llm(settings)
    embedder = embedder if embedder is not None else get_embedder(settings.embed)
    stored = load_scores(study, settings)
    stored = stored[
        (stored["judge_identity"] == llm.model_identity)
        & (stored["embed_model"] == embedder.model_id)
    ]
    earlier = {
        (line["method"], line["id"], line["answer"], line["context_key"]): line
        for line in stored.to_dict("records")
    }
    empty.attrs.update(judge_identity=llm.model_identity, embed_model=embedder.model_id)
    context = StudyContext(study, settings, embedder)

    def missing(rec: dict[str, Any]) -> list[str]:
        question = context.questions.get(rec["id"])
        wanted = metrics_for(question.type if question else None, include)
        line = earlier.get(record_key(rec))
        if line is None:
            return wanted
        prompts = line.get("judge_prompts") or {}
        now = prompts_of(wanted)  # a metric judged with another prompt is judged again
        return [
            m for m in wanted if m not in _held(line) or prompts.get(m_as(m)) != now.get(m_as(m))
        ]

    todo = [r for r in df.to_dict("records") if missing(r)]
    if not todo:
        return empty
    unknown = [r for r in todo if r["id"] not in context.questions]
    for rec in unknown:
        log.warning(
            "%s %s: question %s is not in the study's slice", study, rec["method"], rec["id"]
        )
    # Contexts are recovered here, in one thread: graphs load once and are not shared.
    items = [(r, context.texts(r)) for r in todo if r["id"] in context.questions]
    path = study_dir(study, settings) / GRB_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    written: list[dict[str, Any]] = []
    lock = threading.Lock()

    def score(item: tuple[dict[str, Any], Any]) -> None:
        rec, recovered = item
        question = context.questions[rec["id"]]
        try:
            row = score_question(
                llm,
                question,
                answer_text(rec["answer"]),
                list(recovered.texts),
                embedder,
                missing(rec),
            )
        except LLMError as exc:  # retried by the next run, never stored
            log.warning("%s %s %s: judge call failed: %s", study, rec["method"], rec["id"], exc)
            return
        line = _line(rec, row, llm, embedder.model_id, recovered, earlier.get(record_key(rec)))
        with lock, path.open("a", encoding="utf-8") as out:  # written the moment it is scored
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            written.append(line)

    llm.map(score, items, desc=f"graphragbench {study}")
    frame = pd.DataFrame(written, columns=SCORE_COLUMNS)
    frame.attrs.update(empty.attrs, errors=len(items) - len(written), unknown=len(unknown))
    return frame


def _verdicts(line: dict[str, Any] | None) -> dict[str, Any]:
    """A stored line's per-statement verdicts ({} for a line written before they were kept)."""
    held = (line or {}).get("verdicts")
    return held if isinstance(held, dict) else {}


def _append(study: str, settings: Settings, lines: Sequence[dict[str, Any]]) -> None:
    path = study_dir(study, settings) / GRB_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


def add_rouge(study: str, settings: Settings | None = None) -> pd.DataFrame:
    """ROUGE-L for every stored line (the newest per answer, context, judge and embedder) of a
    question whose type uses it and that does not hold it yet: one merged line each, appended
    with the line's judge and embedder (no model is called). Returns the new lines."""
    settings = settings or load_settings()
    stored = load_scores(study, settings)
    if stored.empty:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    questions = StudyContext(study, settings).questions
    new: list[dict[str, Any]] = []
    for line in stored.to_dict("records"):
        line = {k: v for k, v in line.items() if not _missing(v)}
        question = questions.get(line["id"])
        wanted = metrics_for(question.type if question else None, ("rouge_score",))
        if not wanted or "rouge_score" in _held(line):
            continue
        rouge = rouge_score(answer_text(line.get("answer")), question.answer or "")
        held = set(_held(line)) | {"rouge_score"}
        new.append(
            {
                **{c: line.get(c) for c in SCORE_COLUMNS},
                "rouge_score": rouge,
                "holds": [m for m in IMPLEMENTED if m in held],
                "scored": utc_now(),
            }
        )
    _append(study, settings, new)
    return pd.DataFrame(new, columns=SCORE_COLUMNS)


def _missing(value: Any) -> bool:
    """A cell pandas filled for a column the stored line lacks."""
    return value is None or (isinstance(value, float) and value != value)
