"""``ace-lab reread``: re-answer a study's stored contexts with the current reader.

A reader change (:mod:`ace_lab.methods.reader`) never needs a rerun of the methods: every
record keeps the final context it was answered from (``context_ids`` and ``context_texts``),
so :func:`reread` sends each one to the reader, one call per record, with no retrieval and no
method call. The new records go to their own study, ``<study>-reread-<reader>``
(:func:`reread_study`), beside the old one, never over it, so both stay comparable and a table
of either says which reader produced each row (``reader``).

A reread record is the source record with the reader's answer: ``answer``, ``raw``, its scores (the
answer rows of :mod:`ace_lab.eval.metrics.table`: ``em``, ``f1``), ``reader``, ``evidence_only``
false, ``reread_from`` (the source study), ``model_identity`` the reader's (the context's stays in
``context_model_identity``), and the reader call's own cost in ``reader_input_tokens``,
``reader_output_tokens`` and ``reader_s`` (cold cache). Every other column, costs included, is the
source record's: what the context cost to obtain (plus the old answer call, for an answered
source). The context is rendered the same way for every method: its items in their stored order
under one header per evidence kind (the round and branch headers of a live render are not stored).
Records without ``context_texts`` (written before contexts were stored) cannot be reread and are
counted as skipped; records already in the target study are kept (a rerun resumes).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ace_lab.config import Settings, load_settings
from ace_lab.eval.metrics.table import answer_scores
from ace_lab.eval.studies.jsonl import read_jsonl, record_files
from ace_lab.eval.studies.study import (
    read_manifest,
    results_path,
    study_dir,
    update_manifest,
    utc_now,
)
from ace_lab.evidence import EVIDENCE_KINDS
from ace_lab.llm import LLM
from ace_lab.methods.generate import generate
from ace_lab.methods.names import parse
from ace_lab.methods.reader import check_reader, reading

log = logging.getLogger(__name__)

#: The keys of a study's manifest that say what its records answer.
SLICE_KEYS = ("dataset", "n", "seed", "slice_id", "task")


def reread_study(study: str, reader: str) -> str:
    """The study the reread of ``study`` with ``reader`` writes into."""
    return f"{study}-reread-{reader}"


#: The evidence kind of a stored context id, by its prefix (the graphs' node ids: ``ent:``,
#: ``rel:``, ``sum:``, ``com:``, ArcRAG's witness rows ``w:``); a bare id is a passage (chunk).
ID_KINDS = {"ent": "entity", "rel": "relation", "sum": "summary", "com": "report", "w": "row"}


def kind_of(item_id: str) -> str:
    """The evidence kind of a stored context id (:data:`ID_KINDS`, or a kind name prefix)."""
    prefix, colon, _ = str(item_id).partition(":")
    if not colon:
        return "passage"
    kind = ID_KINDS.get(prefix, prefix)
    return kind if kind in EVIDENCE_KINDS else "passage"


def stored_context(ids: Sequence[str], texts: Sequence[str]) -> str:
    """A record's stored context as the reader sees it: items in order, one ``### kind``
    header per run of one evidence kind (:func:`kind_of`)."""
    lines: list[str] = []
    last = None
    for item_id, text in zip(ids, texts, strict=True):
        kind = kind_of(item_id)
        if kind != last:
            if lines:
                lines.append("")
            lines.append(f"### {kind}")
            last = kind
        lines.append(f"- {text}")
    return "\n".join(lines)


def rereadable(rec: dict[str, Any]) -> bool:
    """Whether a record kept the context it was answered from (ids and their texts)."""
    ids, texts = rec.get("context_ids"), rec.get("context_texts")
    return isinstance(ids, list) and isinstance(texts, list) and len(ids) == len(texts)


def reread_record(rec: dict[str, Any], llm: LLM, reader: str, task: str, study: str) -> dict:
    """The record ``rec`` answered again from its stored context by ``reader`` (one call)."""
    context = stored_context(rec["context_ids"], rec["context_texts"])
    calls_before = len(llm.ledger.calls)
    with reading(reader):
        generation = generate(llm, str(rec["question"]), context, task)  # type: ignore[arg-type]
    calls = llm.ledger.calls[calls_before:]
    answered = {
        **rec,
        "answer": generation.answer,
        "raw": generation.raw,
        "reader": reader if task == "qa" else task,
        "evidence_only": False,
        "reread_from": study,
        "context_model_identity": rec.get("model_identity"),
        "model_identity": llm.model_identity,
        "reader_input_tokens": sum(c.response_prompt_tokens for c in calls),
        "reader_output_tokens": sum(c.response_completion_tokens for c in calls),
        "reader_s": round(sum(c.latency_s for c in calls if not c.cache_hit), 4),
        "time": utc_now(),
    }
    return answered | answer_scores(answered)  # the new answer's scores


@dataclass(frozen=True)
class Pending:
    """One run of a study as a reread finds it: the records still to reread (a stored context,
    not yet in the target study), how many are there already and how many kept no context."""

    method: str
    todo: list[dict[str, Any]]
    kept: int
    skipped: int
    out_path: Path


def pending(
    study: str, reader: str, methods: Sequence[str] | None, settings: Settings
) -> tuple[dict[str, Any], list[Pending]]:
    """The study's manifest and, per run of ``methods`` (default all; a bare name such as
    ``naive`` stands for the study's one run of that method, ``naive:b1500``), what a reread
    with ``reader`` has left to do. A ValueError (one line) for an unknown reader or method, or
    a study whose task is not QA."""
    check_reader(reader)
    manifest = read_manifest(study, settings)
    task = str(manifest.get("task") or "qa")
    if task != "qa":
        raise ValueError(f"{study} answers task {task!r}; the readers are for QA (task qa)")
    found = _method_files(study_dir(study, settings))
    chosen = [run_named(found, study, m) for m in methods] if methods else list(found)
    target = reread_study(study, reader)
    runs = []
    for method in chosen:
        records = [r for r in read_jsonl(found[method]) if r.get("method", method) == method]
        out_path = results_path(target, method, settings)
        done = {r["id"] for r in read_jsonl(out_path)} if out_path.is_file() else set()
        todo = [r for r in records if rereadable(r) and r["id"] not in done]
        skipped = sum(not rereadable(r) for r in records)
        runs.append(Pending(method, todo, len(done), skipped, out_path))
    return manifest, runs


def reread(
    study: str,
    reader: str = "short",
    methods: Sequence[str] | None = None,
    *,
    settings: Settings | None = None,
    llm: LLM | None = None,
    progress: bool = True,
) -> dict[str, dict[str, int]]:
    """Re-answer every stored context of ``study`` (its ``methods``, as :func:`pending` reads
    them) with ``reader`` into :func:`reread_study`; per method: ``reread``, ``kept`` (already
    there), ``skipped`` (no stored context). A ValueError (one line) for an unknown reader or
    method, or a study whose task is not QA."""
    settings = settings or load_settings()
    manifest, runs = pending(study, reader, methods, settings)
    task = str(manifest.get("task") or "qa")
    directory = study_dir(reread_study(study, reader), settings)
    llm = llm or LLM(settings)
    slice_info = {k: manifest[k] for k in SLICE_KEYS if k in manifest}
    slice_info |= {"reread_from": study, "reader": reader}
    counts: dict[str, dict[str, int]] = {}
    for run in runs:
        counts[run.method] = {"reread": 0, "kept": run.kept, "skipped": run.skipped}
        if run.skipped:
            log.warning(
                "%s: %d record(s) of %s kept no context: skipped", study, run.skipped, run.method
            )
        if not run.todo:
            continue
        update_manifest(
            directory,
            run.method,
            slice_info=slice_info,
            llm=llm,
            graph_model=str(manifest.get("graph_model") or ""),
            entry={"started": utc_now(), "reread_from": study, "reader": reader},
        )
        bar = tqdm(run.todo, desc=f"reread {run.method}", unit="q", disable=not progress)
        with run.out_path.open("a", encoding="utf-8") as out:
            for rec in bar:
                out.write(json.dumps(reread_record(rec, llm, reader, task, study)) + "\n")
                out.flush()
                counts[run.method]["reread"] += 1
    return counts


def run_named(found: dict[str, Path], study: str, name: str) -> str:
    """The run of ``study`` that ``name`` names: itself, or for a name without a variant
    (``naive``, ``hipporag@hierarchical``) the study's one run that differs from it only by its
    variant (``naive:b1500``, ``hipporag:b1500@hierarchical``); a ValueError naming what the
    study has otherwise."""
    if name in found:
        return name
    runs = sorted(run for run in found if _without_variant(run) == name and ":" not in name)
    if len(runs) == 1:
        return runs[0]
    if runs:
        raise ValueError(f"{study} has several runs of {name}: {', '.join(runs)}; name one")
    raise ValueError(f"{study} has no records of {name}; it has: {', '.join(found)}")


def _without_variant(name: str) -> str:
    """``name`` with its ``:variant`` dropped (a name outside the grammar as it is)."""
    try:
        return str(replace(parse(name), variant=""))
    except KeyError:
        return name


def _method_files(directory: Path) -> dict[str, Path]:
    """Method name → its results file in a study (the name its records carry)."""
    found: dict[str, Path] = {}
    for path in record_files(directory):
        records = read_jsonl(path)
        if records and isinstance(records[0].get("method"), str):
            found[records[0]["method"]] = path
    return found
