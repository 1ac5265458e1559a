"""Run a method over a data set slice, one JSON line per question, resumable and reproducible.

``run(method, dataset, n)`` answers every question of the slice and appends a
:func:`~ace_lab.eval.record.record` to ``<results_dir>/<study>/<method>.jsonl`` the moment the
question finishes, flushed, so an interrupted run loses at most the questions in flight. A rerun
skips the ids already in the file: evaluation resumes instead of paying for answered questions
again. A question whose method raised is written to ``<method>.errors.jsonl`` instead of the
results, so the next run retries it rather than scoring a crash as a wrong answer. The study's
files and ``manifest.json`` are described in :mod:`ace_lab.eval.study`.
"""

from __future__ import annotations

import contextvars
import json
import logging
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from ace_lab.config import Settings, load_settings
from ace_lab.data import Question, default_task, load_dataset, make_slice
from ace_lab.data.graphragbench import stratified_questions
from ace_lab.eval.record import record
from ace_lab.eval.study import (
    ERRORS_SUFFIX,
    cut_torn_tail,
    read_jsonl,
    results_frame,
    results_path,
    safe_name,
    study_dir,
    update_manifest,
    utc_now,
)
from ace_lab.llm import LLM, get_llm
from ace_lab.methods.generate import Task
from ace_lab.registry import graph_family, make_method
from ace_lab.retrieval import RetrievalGraph

log = logging.getLogger(__name__)


def select_questions(
    questions: list[Question], limit: int | None, stratified: int | None, seed: int
) -> list[Question]:
    """The first ``limit`` questions (all when None), then ``stratified`` of them spread over
    the question types in proportion, every type at least once (slice order kept)."""
    chosen = list(questions[:limit] if limit is not None else questions)
    return stratified_questions(chosen, stratified, seed) if stratified is not None else chosen


def run(
    method: str,
    dataset: str,
    n: int,
    *,
    seed: int = 0,
    study: str | None = None,
    settings: Settings | None = None,
    llm: LLM | None = None,
    graph: RetrievalGraph | None = None,
    graph_model: str = "qwen1.5b",
    task: Task | None = None,
    concurrency: int = 1,
    progress: bool = True,
    limit: int | None = None,
    stratified: int | None = None,
) -> pd.DataFrame:
    """Answer the slice's questions with ``method``; return all its records in slice order.

    Questions run in slice order (the first ``limit`` of them, if given; with ``stratified=k``
    k of them spread over the question types in proportion, every type at least once); with
    ``concurrency > 1`` they finish, and are appended, in any order, but the returned frame
    (and :func:`~ace_lab.eval.study.load_results`) is ordered by ``position``, the question's
    index in the slice.
    ``graph`` and ``llm`` are loaded from ``settings`` when not given (tests pass their own);
    ``task`` defaults to the data set's (:func:`~ace_lab.data.default_task`).
    Failed questions are counted in ``df.attrs["errors"]`` and retried by the next run.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    settings = settings or load_settings()
    task = task or default_task(dataset)  # type: ignore[assignment]  # a registry task
    sl = make_slice(load_dataset(dataset, settings.data_dir), n, seed=seed)
    study = study or sl.slice_id
    directory = study_dir(study, settings)
    directory.mkdir(parents=True, exist_ok=True)
    out_path = results_path(study, method, settings)
    errors_path = out_path.with_name(safe_name(method) + ERRORS_SUFFIX)

    questions = select_questions(sl.questions, limit, stratified, seed)
    position = {q.id: i for i, q in enumerate(sl.questions)}
    done = {rec["id"] for rec in read_jsonl(out_path, repair_tail=True)}
    cut_torn_tail(errors_path)  # a crash mid-write must not glue the next error onto it
    todo = [q for q in questions if q.id not in done]

    llm = llm or get_llm(settings)
    slice_info = {"dataset": dataset, "n": n, "seed": seed, "slice_id": sl.slice_id, "task": task}
    common = {"slice_info": slice_info, "llm": llm, "graph_model": graph_model}
    started = utc_now()
    update_manifest(directory, method, entry={"started": started}, **common)

    failures = 0
    if todo:
        if graph is None:
            family = graph_family(method)
            graph = RetrievalGraph.load(
                dataset, n, family, model=graph_model, seed=seed, settings=settings
            )
        runner = make_method(method, graph, llm)

        def answer_one(question: Question) -> dict[str, Any]:
            rec = record(question, runner.answer(question.question, task))
            return {"position": position[question.id], **rec, "method": method}

        bar = tqdm(total=len(todo), desc=method, disable=not progress, unit="q")
        pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="ace-run")
        try:
            # One context copy per question: a Context cannot be entered by two threads.
            futures = {pool.submit(contextvars.copy_context().run, answer_one, q): q for q in todo}
            with (
                out_path.open("a", encoding="utf-8") as out,
                errors_path.open("a", encoding="utf-8") as err,
            ):
                for future in as_completed(futures):
                    question = futures[future]
                    try:
                        rec = future.result()
                    except Exception as exc:
                        failures += 1
                        log.warning("%s: question %s failed: %r", method, question.id, exc)
                        line = {
                            "id": question.id,
                            "method": method,
                            "time": utc_now(),
                            "error": repr(exc),
                            "traceback": "".join(traceback.format_exception(exc)),
                        }
                        err.write(json.dumps(line, ensure_ascii=False) + "\n")
                        err.flush()
                    else:
                        # Written by this thread only, as each question finishes: no lock.
                        out.write(json.dumps(rec, default=str, ensure_ascii=False) + "\n")
                        out.flush()
                    bar.update(1)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            bar.close()
        if errors_path.stat().st_size == 0:
            errors_path.unlink()

    records = read_jsonl(out_path)
    update_manifest(
        directory,
        method,
        entry={
            "records": len(records),
            "errors_last_run": failures,
            "finished": utc_now(),
            "last_run": {"started": started, "limit": limit, "concurrency": concurrency},
        },
        **common,
    )
    if failures:
        log.warning(
            "%s: %d questions failed (see %s); rerun to retry", method, failures, errors_path
        )
    frame = results_frame(records)
    frame.attrs["errors"] = failures
    return frame
