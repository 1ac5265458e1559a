"""Run a method over a data set slice, one JSON line per question, resumable and reproducible.

``run(method, dataset, n)`` answers every question of the slice and appends a :func:`record`
to ``<results_dir>/<study>/<method>.jsonl`` the moment the question finishes, flushed, so an
interrupted run loses at most the questions in flight. A rerun skips the ids already in the
file: evaluation resumes instead of paying for answered questions again. A question whose
method raised is written to ``<method>.errors.jsonl`` instead of the results, so the next run
retries it rather than scoring a crash as a wrong answer.

``manifest.json`` beside the results says what produced them (slice, model, graph model, LLM
settings, git commit, per-method counts and times), because a results file without its model
and slice cannot be compared with anything. Tables (``ace_lab.eval.tables``) read the files
back with :func:`load_results`; they never need the LLM.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import re
import subprocess
import traceback
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from ace_lab.config import REPO_ROOT, Settings, load_settings
from ace_lab.data import Question, load_dataset, make_slice
from ace_lab.eval.metrics import (
    answer_in_context,
    exact_match,
    extract_final_answer,
    f1_score,
    is_yes_no,
    support_recall,
)
from ace_lab.evidence import Answer, Context, Evidence, LLMCall
from ace_lab.llm import LLM, get_llm
from ace_lab.methods.generate import Task
from ace_lab.methods.registry import graph_family, make_method
from ace_lab.methods.retrieval_graph import RetrievalGraph

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
ERRORS_SUFFIX = ".errors.jsonl"


class ResultsError(ValueError):
    """A results file is corrupt, or a study's manifest does not match the requested run."""


# --------------------------------------------------------------------------------- records
def _has_answer(items: Iterable[Evidence], golds: list[str], yes_no: bool) -> bool | None:
    """Gold in the rendered context; None where coverage is undefined (yes/no, no gold)."""
    if yes_no or not golds:
        return None
    return answer_in_context(Context(list(items)).render(), golds)


def cold_wall_s(wall_s: float, calls: Iterable[LLMCall]) -> float | None:
    """The wall time the answer would have taken with an empty cache: each cached call's
    recorded model time replaces its lookup time. None when a cached call's model time was
    not recorded (responses cached before latencies were kept). ACE's LLM calls run one after
    another (the parallel branches make none), so the substitution adds up."""
    extra = 0.0
    for call in calls:
        if call.cache_hit:
            if call.response_latency_s is None:
                return None
            extra += call.response_latency_s - call.latency_s
    return round(wall_s + extra, 4)


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
    ``base_has_answer`` is the same coverage check on ACE's first retrieval (``stages.base``),
    None for methods without stages: the pair gives ACE's Table 5 coverage and recovery.
    """
    golds = list(question.answers)
    yes_no = is_yes_no(golds)
    meta = answer.meta
    summary = answer.trace.summary()
    calls = answer.trace.llm_calls
    evidence = list(answer.context.evidence)
    stages = meta.get("stages") or {}
    base = stages.get("base")
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
        "cold_wall_s": cold_wall_s(summary["wall_s"], calls),
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


# ----------------------------------------------------------------------------------- files
def safe_name(method: str) -> str:
    """A file-safe stem for a method name (``ace-fixed:gap+depth`` → ``ace-fixed_gap+depth``).

    ``:`` is illegal on Windows and ``@``/``/`` confuse shells and paths; records keep the
    original name, so the mapping never has to be inverted.
    """
    return re.sub(r"[^A-Za-z0-9._+-]", "_", method)


def study_dir(study: str, settings: Settings | None = None) -> Path:
    return Path((settings or load_settings()).results_dir) / study


def results_path(study: str, method: str, settings: Settings | None = None) -> Path:
    return study_dir(study, settings) / f"{safe_name(method)}.jsonl"


def _read_jsonl(path: Path, *, repair_tail: bool = False) -> list[dict[str, Any]]:
    """Records of a JSON-lines file; a corrupt line raises ``ResultsError`` naming it.

    With ``repair_tail``, a final line without its newline that does not parse is a write
    torn by a crash: it is cut from the file (and logged) so the question is simply rerun.
    """
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    out: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict):
                raise ValueError(f"expected a JSON object, got {type(rec).__name__}")
        except ValueError as exc:
            torn = number == len(lines) and not text.endswith("\n")
            if repair_tail and torn:
                log.warning("%s: dropping a torn last line (%s); it will be rerun", path, exc)
                path.write_text(text[: len(text) - len(line)], encoding="utf-8")
                break
            raise ResultsError(f"{path}: corrupt line {number}: {exc}") from exc
        out.append(rec)
    else:
        if repair_tail and text and not text.endswith("\n"):
            # A complete last record without its newline: the next append would glue onto it.
            with path.open("a", encoding="utf-8") as fh:
                fh.write("\n")
    return out


def _git_commit() -> tuple[str | None, bool | None]:
    """(HEAD commit, working tree dirty) of the ace_lab checkout; (None, None) without git."""
    root = REPO_ROOT or Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
        if head.returncode != 0:
            return None, None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
        dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
        return head.stdout.strip(), dirty
    except (OSError, subprocess.SubprocessError):
        return None, None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write via a temporary file and rename, so a crash never leaves half a manifest."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def _update_manifest(
    directory: Path,
    method: str,
    *,
    slice_info: dict[str, Any],
    llm: LLM,
    graph_model: str,
    entry: dict[str, Any],
) -> None:
    """Create or update ``manifest.json``; a study must stay on one slice and task.

    Mixing slices in one study would pair unrelated questions in the tables, so a mismatch
    is an error. A different answering model is allowed (a model comparison is a study) but
    recorded per method and logged.
    """
    path = directory / MANIFEST
    manifest: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
    for key, value in slice_info.items():
        if key in manifest and manifest[key] != value:
            raise ResultsError(
                f"{path}: study was run with {key}={manifest[key]!r}, not {value!r}; "
                "use another --study"
            )
    cfg = llm.settings.llm
    commit, dirty = _git_commit()
    if manifest.get("model_identity") not in (None, llm.model_identity):
        log.warning(
            "%s: study mixes models (%s and %s); each method records its own",
            path,
            manifest["model_identity"],
            llm.model_identity,
        )
    manifest = {
        **slice_info,
        "model": manifest.get("model", llm.model),
        "model_identity": manifest.get("model_identity", llm.model_identity),
        "graph_model": manifest.get("graph_model", graph_model),
        "llm": manifest.get(
            "llm",
            {
                "tier": cfg.tier,
                "base_url": cfg.base_url,
                "model": cfg.model,
                "ctx_size": cfg.ctx_size,
                "parallel": cfg.parallel,
            },
        ),
        "git_commit": commit,
        "git_dirty": dirty,
        "created": manifest.get("created", _now()),
        "updated": _now(),
        "methods": manifest.get("methods", {}),
    }
    previous = manifest["methods"].get(method, {})
    manifest["methods"][method] = {
        **previous,
        "file": f"{safe_name(method)}.jsonl",
        "model": llm.model,
        "model_identity": llm.model_identity,
        "graph_model": graph_model,
        "started": previous.get("started", entry.get("started")),
        **entry,
    }
    directory.mkdir(parents=True, exist_ok=True)
    _write_json_atomic(path, manifest)


# ------------------------------------------------------------------------------------ run
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
    task: Task = "qa",
    concurrency: int = 1,
    progress: bool = True,
    limit: int | None = None,
) -> pd.DataFrame:
    """Answer the slice's questions with ``method``; return all its records in slice order.

    Questions run in slice order (the first ``limit`` of them, if given); with
    ``concurrency > 1`` they finish, and are appended, in any order, but the returned frame
    (and :func:`load_results`) is ordered by ``position``, the question's index in the slice.
    ``graph`` and ``llm`` are loaded from ``settings`` when not given (tests pass their own).
    Failed questions are counted in ``df.attrs["errors"]`` and retried by the next run.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    settings = settings or load_settings()
    sl = make_slice(load_dataset(dataset, settings.data_dir), n, seed=seed)
    study = study or sl.slice_id
    directory = study_dir(study, settings)
    directory.mkdir(parents=True, exist_ok=True)
    out_path = results_path(study, method, settings)
    errors_path = out_path.with_name(safe_name(method) + ERRORS_SUFFIX)

    questions = sl.questions[:limit] if limit is not None else list(sl.questions)
    position = {q.id: i for i, q in enumerate(sl.questions)}
    done = {rec["id"] for rec in _read_jsonl(out_path, repair_tail=True)}
    todo = [q for q in questions if q.id not in done]

    llm = llm or get_llm(settings)
    slice_info = {"dataset": dataset, "n": n, "seed": seed, "slice_id": sl.slice_id, "task": task}
    common = {"slice_info": slice_info, "llm": llm, "graph_model": graph_model}
    started = _now()
    _update_manifest(directory, method, entry={"started": started}, **common)

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
                            "time": _now(),
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

    records = _read_jsonl(out_path)
    _update_manifest(
        directory,
        method,
        entry={
            "records": len(records),
            "errors_last_run": failures,
            "finished": _now(),
            "last_run": {"started": started, "limit": limit, "concurrency": concurrency},
        },
        **common,
    )
    if failures:
        log.warning(
            "%s: %d questions failed (see %s); rerun to retry", method, failures, errors_path
        )
    frame = _frame(records)
    frame.attrs["errors"] = failures
    return frame


def _frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(records)
    if not frame.empty and "position" in frame:
        frame = frame.sort_values(["method", "position"], kind="stable").reset_index(drop=True)
    return frame


def load_results(
    study: str, settings: Settings | None = None, methods: Iterable[str] | None = None
) -> pd.DataFrame:
    """Every record of a study (one row per question × method), ordered by method, position.

    ``methods`` restricts the read to those methods (a missing one is an error naming the
    file, since a table silently missing a row is worse than no table).
    """
    directory = study_dir(study, settings)
    if not directory.is_dir():
        raise FileNotFoundError(f"no results for study {study!r} at {directory}")
    if methods is None:
        paths = sorted(p for p in directory.glob("*.jsonl") if not p.name.endswith(ERRORS_SUFFIX))
    else:
        paths = [directory / f"{safe_name(m)}.jsonl" for m in methods]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise FileNotFoundError(f"no results file(s): {', '.join(missing)}")
    records = [rec for path in paths for rec in _read_jsonl(path)]
    return _frame(records)


def latest_study(settings: Settings | None = None) -> str:
    """The most recently modified study under ``results_dir`` (for reports and benches)."""
    root = Path((settings or load_settings()).results_dir)
    candidates = root.iterdir() if root.is_dir() else []
    studies = [p for p in candidates if p.is_dir() and any(p.glob("*.jsonl"))]
    if not studies:
        raise FileNotFoundError(f"no studies with results under {root}")
    return max(studies, key=lambda p: max(f.stat().st_mtime for f in p.glob("*.jsonl"))).name


def rescore(study: str, settings: Settings | None = None) -> dict[str, int]:
    """Re-extract QA answers from the stored raw generations and recompute EM/F1, in place.

    For when answer extraction improves after a run: the generations, contexts and costs stay
    as measured; only ``answer``, ``em`` and ``f1`` follow the current ``extract_final_answer``.
    Records without gold (pairwise-judged sets) are left alone. Returns changed records per file.
    """
    changed: dict[str, int] = {}
    folder = study_dir(study, settings)
    for path in sorted(folder.glob("*.jsonl")):
        if path.name.endswith(".errors.jsonl"):
            continue
        records = _read_jsonl(path)
        count = 0
        for rec in records:
            if not rec.get("gold") or rec.get("raw") is None:
                continue
            answer = extract_final_answer(rec["raw"])
            if answer != rec["answer"]:
                count += 1
            rec["answer"] = answer
            rec["em"] = exact_match(answer, rec["gold"])
            rec["f1"] = f1_score(answer, rec["gold"])
        tmp = path.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
        tmp.replace(path)
        changed[path.stem] = count
    return changed
