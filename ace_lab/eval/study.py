"""A study on disk: its folder, per-method JSON-lines results, manifest, and reading them back.

A study is one folder ``<results_dir>/<study>/`` holding ``<method>.jsonl`` (one
:func:`ace_lab.eval.record.record` per question, appended by :func:`ace_lab.eval.runner.run`),
``<method>.errors.jsonl`` (questions whose method raised, retried by the next run) and
``manifest.json``, which says what produced the results (slice, model, graph model, LLM
settings, git commit, per-method counts and times): a results file without its model and slice
cannot be compared with anything. Tables read the files back with :func:`load_results`; they
never need the LLM.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ace_lab.config import REPO_ROOT, Settings, load_settings, redact_url
from ace_lab.eval.metrics import exact_match, f1_score
from ace_lab.eval.record import with_recalls
from ace_lab.methods.final_answer import extract_final_answer

if TYPE_CHECKING:  # only a type here: reading results never needs the LLM client
    from ace_lab.llm import LLM

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
ERRORS_SUFFIX = ".errors.jsonl"


class ResultsError(ValueError):
    """A results file is corrupt, or a study's manifest does not match the requested run."""


# ----------------------------------------------------------------------------------- names
def safe_name(method: str) -> str:
    """A file-safe stem for a method name (``ace-fixed:gap+depth`` → ``ace-fixed_gap+depth``).

    ``:`` is illegal on Windows and ``@``/``/`` confuse shells and paths; records keep the
    original name, so the mapping never has to be inverted.
    """
    return re.sub(r"[^A-Za-z0-9._+-]", "_", method)


def study_dir(study: str, settings: Settings | None = None) -> Path:
    return Path((settings or load_settings()).results_dir) / study


def read_manifest(study: str, settings: Settings | None = None) -> dict[str, Any]:
    """The study's manifest; a clear error when it is missing or names no data set."""
    path = study_dir(study, settings) / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(f"no {MANIFEST} in {path.parent}: cannot tell the study's slice")
    manifest = json.loads(path.read_text(encoding="utf-8"))
    if not manifest.get("dataset"):
        raise ValueError(f"{path}: names no dataset")
    return manifest


def results_path(study: str, method: str, settings: Settings | None = None) -> Path:
    return study_dir(study, settings) / f"{safe_name(method)}.jsonl"


def utc_now() -> str:
    """The current UTC time, to the second, as ISO 8601 (manifest and error timestamps)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


# ----------------------------------------------------------------------------------- jsonl
def record_files(directory: Path) -> list[Path]:
    """A study folder's record files (``<method>.jsonl``), error logs left out, sorted."""
    return sorted(p for p in directory.glob("*.jsonl") if not p.name.endswith(ERRORS_SUFFIX))


def read_jsonl(path: Path, *, repair_tail: bool = False) -> list[dict[str, Any]]:
    """Records of a JSON-lines file; a corrupt line raises ``ResultsError`` naming it.

    With ``repair_tail``, a final line without its newline that does not parse is a write
    torn by a crash: it is cut from the file (and logged) so the question is simply rerun.
    The file is read as bytes and each line decoded alone, since a torn write can end inside a
    multi-byte character; the cut truncates the file in place, so a crash during the repair
    itself cannot lose the records before it.
    """
    if not path.is_file():
        return []
    data = path.read_bytes()
    lines = data.split(b"\n")
    out: list[dict[str, Any]] = []
    offset = 0  # byte offset of the current line
    for number, raw in enumerate(lines, 1):
        start, offset = offset, offset + len(raw) + 1
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw.decode("utf-8"))
            if not isinstance(rec, dict):
                raise ValueError(f"expected a JSON object, got {type(rec).__name__}")
        except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            torn = number == len(lines) and not data.endswith(b"\n")
            if repair_tail and torn:
                log.warning("%s: dropping a torn last line (%s); it will be rerun", path, exc)
                os.truncate(path, start)
                break
            raise ResultsError(f"{path}: corrupt line {number}: {exc}") from exc
        out.append(rec)
    else:
        if repair_tail and data and not data.endswith(b"\n"):
            # A complete last record without its newline: the next append would glue onto it.
            with path.open("ab") as fh:
                fh.write(b"\n")
    return out


def cut_torn_tail(path: Path) -> None:
    """End an append-only JSON-lines file on a whole line before appending to it.

    A last line without its newline is a write torn by a crash unless it parses (then only the
    newline is missing and is added); a torn one is cut, in place. Nothing else is read, so a
    log that is only appended to (the errors file) never blocks a run.
    """
    if not path.is_file() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    start = data.rfind(b"\n") + 1
    try:
        whole = isinstance(json.loads(data[start:].decode("utf-8")), dict)
    except ValueError:
        whole = False
    if whole:
        with path.open("ab") as fh:
            fh.write(b"\n")
    else:
        log.warning("%s: dropping a torn last line", path)
        os.truncate(path, start)


# -------------------------------------------------------------------------------- manifest
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


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write via a temporary file and rename, so a crash never leaves half a manifest."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def update_manifest(
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
    from ace_lab.llm.serving import resolve  # writing a manifest runs the LLM anyway

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
                "base_url": redact_url(cfg.base_url),
                "model": cfg.model,
                "ctx_size": cfg.ctx_size,
                "parallel": cfg.parallel,
            },
        ),
        "git_commit": commit,
        "git_dirty": dirty,
        "created": manifest.get("created", utc_now()),
        "updated": utc_now(),
        "methods": manifest.get("methods", {}),
    }
    previous = manifest["methods"].get(method, {})
    manifest["methods"][method] = {
        **previous,
        "file": f"{safe_name(method)}.jsonl",
        "model": llm.model,
        "model_identity": llm.model_identity,
        "graph_model": graph_model,
        # The server the answers came from (which of its settings change outputs:
        # ace_lab.llm.serving), so a run says what it used.
        "serving": resolve(cfg.serving, llm.settings.model_dir).as_dict() if cfg.is_local else None,
        # The method's first start stays; each run's own start is in ``last_run``.
        **{key: value for key, value in entry.items() if key != "started"},
        "started": previous.get("started", entry.get("started")),
    }
    directory.mkdir(parents=True, exist_ok=True)
    _write_json_atomic(path, manifest)


# ------------------------------------------------------------------------------- read back
def results_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """Records as a frame ordered by method, then ``position`` (the question's slice index)."""
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
        paths = record_files(directory)
    else:
        paths = [directory / f"{safe_name(m)}.jsonl" for m in methods]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise FileNotFoundError(f"no results file(s): {', '.join(missing)}")
    records = [rec for path in paths for rec in read_jsonl(path)]
    return with_recalls(results_frame(records), directory)  # old records: recalls recomputed


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
        records = read_jsonl(path)
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
