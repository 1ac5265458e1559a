"""Run a method over a data set slice, one JSON line per question, resumable and reproducible.

``run(method, dataset, n)`` answers every question of the slice and appends a
:func:`~ace_lab.eval.studies.record.record` to ``<results_dir>/<study>/<method>.jsonl`` the moment
the question finishes, flushed, so an interrupted run loses at most the questions in flight. A rerun
skips the ids already in the file: evaluation resumes instead of paying for answered questions
again. A question whose method raised is written to ``<method>.errors.jsonl`` instead of the
results, so the next run retries it rather than scoring a crash as a wrong answer. The study's
files and ``manifest.json`` are described in :mod:`ace_lab.eval.studies.study`.

Every record names the model identity and method configuration hash that produced it
(:mod:`ace_lab.eval.studies.identity`). A run never mixes them into another model's records:
:func:`choose_study` sends it to a study named for its model when the slice's default study
holds the method from another model or configuration, and refuses an explicit ``study`` that
does.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import os
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from ace_lab.config import DEFAULT_TIER, Settings, load_settings, redact_url
from ace_lab.data import Question, default_task, load_slice
from ace_lab.data.graphragbench import stratified_questions
from ace_lab.eval.studies.identity import RunIdentity, identity_digest
from ace_lab.eval.studies.jsonl import ERRORS_SUFFIX, cut_torn_tail, read_jsonl
from ace_lab.eval.studies.record import record
from ace_lab.eval.studies.study import (
    MANIFEST,
    StudyMismatchError,
    identity_conflict,
    results_frame,
    results_path,
    safe_name,
    study_dir,
    study_models,
    update_manifest,
    utc_now,
)
from ace_lab.llm import LLM, get_llm
from ace_lab.llm.inflight import default_concurrency
from ace_lab.methods.generate import Task, evidence_only
from ace_lab.methods.names import record_spelling
from ace_lab.registry import graph_family, make_method
from ace_lab.retrieval import RetrievalGraph

log = logging.getLogger(__name__)

#: The suffix of a slice's evidence-only study (records without answers).
EVIDENCE_SUFFIX = "-evidence"


def select_questions(
    questions: list[Question], limit: int | None, stratified: int | None, seed: int
) -> list[Question]:
    """The first ``limit`` questions (all when None), then ``stratified`` of them spread over
    the question types in proportion, every type at least once (slice order kept)."""
    chosen = list(questions[:limit] if limit is not None else questions)
    return stratified_questions(chosen, stratified, seed) if stratified is not None else chosen


def evidence_study(slice_id: str) -> str:
    """The study evidence-only runs of a slice write into (``<slice id>-evidence``)."""
    return f"{slice_id}{EVIDENCE_SUFFIX}"


def choose_study(
    slice_id: str,
    method: str,
    identity: RunIdentity,
    study: str | None = None,
    settings: Settings | None = None,
) -> str:
    """The study a run of ``method`` by ``identity`` writes into.

    An explicit ``study`` is kept, or refused (:class:`StudyMismatchError`, one line) when its
    records of ``method`` come from another model or configuration. Without one: the slice's
    study (``slice_id``) unless its records of ``method`` are another identity's or its runs
    are all another model's; then the first study that fits of ``<slice_id>--<model>``,
    ``<slice_id>--<model>-<identity digest>`` and ``...-<identity and configuration digest>``
    (the choice is logged, so the command line shows the new study's name).
    """
    if study:
        why = identity_conflict(study_dir(study, settings), method, identity)
        if why:
            raise StudyMismatchError(f"{why}; use another --study, or none for a model's own")
        return study
    label = f"{slice_id}--{safe_name(identity.model)}"
    candidates = (
        slice_id,
        label,
        f"{label}-{identity_digest(identity.model_identity)}",
        f"{label}-{identity_digest(identity.model_identity, identity.config_hash)}",
    )
    reasons = []
    for candidate in candidates:
        directory = study_dir(candidate, settings)
        models = study_models(directory)
        why = identity_conflict(directory, method, identity)
        if why is None and models and identity.model not in models:
            why = f"{directory}: answered by {', '.join(sorted(models))}, not {identity.model}"
        if why is None:
            if reasons:
                log.warning("%s; this run goes to study %r", reasons[0], candidate)
            return candidate
        reasons.append(why)
    raise StudyMismatchError(f"{reasons[-1]}; name a new study with --study")


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
    graph_model: str = DEFAULT_TIER,
    task: Task | None = None,
    concurrency: int | None = None,
    progress: bool = True,
    limit: int | None = None,
    stratified: int | None = None,
    questions: list[Question] | None = None,
    evidence: bool = False,
) -> pd.DataFrame:
    """Answer the slice's questions with ``method``; return all its records in slice order.

    Questions run in slice order (the first ``limit`` of them, if given; with ``stratified=k``
    k of them spread over the question types in proportion, every type at least once).
    ``concurrency`` questions are in flight at once (default: ``settings.llm.concurrency`` for a
    remote endpoint, 1 for the local server; the LLM itself never sends more requests at once
    than that setting). With ``concurrency > 1`` they finish, and are appended, in any order,
    but the returned frame (and :func:`~ace_lab.eval.studies.study.load_results`) is ordered by
    ``position``, the question's index in the slice.
    ``graph`` and ``llm`` are loaded from ``settings`` when not given (tests pass their own);
    ``task`` defaults to the data set's (:func:`~ace_lab.data.default_task`).
    ``study`` defaults to the slice's, or a study named for the model (:func:`choose_study`);
    the one written is ``df.attrs["study"]``, so every returned record is this model's.
    Failed questions are counted in ``df.attrs["errors"]`` and retried by the next run.
    ``questions`` replaces the slice's (a user's questions file; ``position`` is their order).
    A run in which every question failed writes nothing: it leaves the study's files as it found
    them and returns the first error in ``df.attrs["first_error"]`` (and its traceback).
    ``evidence``: stop each question at its final context, before the answer call
    (:func:`~ace_lab.methods.generate.evidence_only`); the records go to the slice's evidence
    study (:func:`evidence_study`), never beside answered ones.
    """
    if concurrency is not None and concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    settings = settings or load_settings()
    method = record_spelling(method)  # mosaic/ace-full and mosaic>ace-full: one record file
    task = task or default_task(dataset)  # type: ignore[assignment]  # a registry task
    sl = load_slice(dataset, n, seed=seed, data_dir=settings.data_dir)
    llm = llm or get_llm(settings)
    concurrency = default_concurrency(llm.settings) if concurrency is None else concurrency
    identity = RunIdentity.of(llm, method)
    base = evidence_study(sl.slice_id) if evidence else sl.slice_id
    study = choose_study(base, method, identity, study, settings)
    directory = study_dir(study, settings)
    created = not directory.is_dir()
    directory.mkdir(parents=True, exist_ok=True)
    out_path = results_path(study, method, settings)
    errors_path = out_path.with_name(safe_name(method) + ERRORS_SUFFIX)

    pool = sl.questions if questions is None else questions
    questions = select_questions(pool, limit, stratified, seed)
    position = {q.id: i for i, q in enumerate(pool)}
    done = {rec["id"] for rec in read_jsonl(out_path, repair_tail=True)}
    cut_torn_tail(errors_path)  # a crash mid-write must not glue the next error onto it
    todo = [q for q in questions if q.id not in done]

    slice_info = {"dataset": dataset, "n": n, "seed": seed, "slice_id": sl.slice_id, "task": task}
    slice_info |= {"evidence_only": True} if evidence else {}
    common = {"slice_info": slice_info, "llm": llm, "graph_model": graph_model}
    started = utc_now()
    before = _snapshot(directory, out_path, errors_path)
    update_manifest(
        directory, method, entry={"started": started, "config_hash": identity.config_hash}, **common
    )

    failures, first_error = 0, None
    if todo:
        if graph is None:
            family = graph_family(method)
            graph = RetrievalGraph.load(
                dataset, n, family, model=graph_model, seed=seed, settings=settings
            )
        runner = make_method(method, graph, llm)
        passages = {p.id: p for p in sl.passages}  # HotpotQA's supporting sentences are theirs

        def answer_one(question: Question) -> dict[str, Any]:
            with evidence_only(evidence):
                answer = runner.answer(question.question, task)
            rec = record(question, answer, evidence_only=evidence, passages=passages)
            return {"position": position[question.id], **rec, "method": method, **identity.fields()}

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
                        # an endpoint's error may repeat the request URL: mask its key
                        error = redact_url(repr(exc))
                        log.warning("%s: question %s failed: %s", method, question.id, error)
                        line = {
                            "id": question.id,
                            "method": method,
                            "time": utc_now(),
                            "error": error,
                            "traceback": redact_url("".join(traceback.format_exception(exc))),
                        }
                        first_error = first_error or line
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
    if todo and failures == len(todo):  # nothing answered: leave the study as it was
        _restore(before, directory if created else None)
        frame = results_frame(read_jsonl(out_path))
        frame.attrs.update(
            errors=failures,
            study=study,
            first_error=first_error["error"],
            first_traceback=first_error["traceback"],
        )
        return frame

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
    frame.attrs.update(errors=failures, study=study)
    return frame


def _snapshot(directory: Path, out_path: Path, errors_path: Path) -> dict[Path, bytes | int | None]:
    """What a run may change in a study: the manifest's bytes, the JSON-lines files' sizes."""
    manifest = directory / MANIFEST
    return {
        manifest: manifest.read_bytes() if manifest.is_file() else None,
        **{p: p.stat().st_size if p.is_file() else None for p in (out_path, errors_path)},
    }


def _restore(snapshot: dict[Path, bytes | int | None], created: Path | None) -> None:
    """Undo a run that answered nothing: each file as it was, the folder it created removed."""
    for path, before in snapshot.items():
        if before is None:
            path.unlink(missing_ok=True)
        elif isinstance(before, bytes):
            path.write_bytes(before)
        elif path.is_file():
            os.truncate(path, before)
    if created is not None:
        with contextlib.suppress(OSError):  # not empty: someone else wrote into it meanwhile
            created.rmdir()
