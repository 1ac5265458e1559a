"""A study on disk: its folder, per-method JSON-lines results, manifest, and reading them back.

A study is one folder ``<results_dir>/<study>/`` holding ``<method>.jsonl`` (one
:func:`ace_lab.eval.studies.record.record` per question, appended by
:func:`ace_lab.eval.studies.runner.run`),
``<method>.errors.jsonl`` (questions whose method raised, retried by the next run) and
``manifest.json``, which says what produced the results (slice, model, graph model, LLM
settings, git commit, per-method counts and times): a results file without its model and slice
cannot be compared with anything. Tables read the files back with :func:`load_results`; they
never need the LLM.

Each record names its model identity and configuration hash (:mod:`ace_lab.eval.studies.identity`);
a method's records in one study come from one model and one configuration
(:func:`identity_conflict` is what a run checks before appending, :func:`identity_mix` what a
report warns about). The files themselves are read by :mod:`ace_lab.eval.studies.jsonl`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import threading
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ace_lab.config import REPO_ROOT, Settings, load_settings, redact_url
from ace_lab.data import DataError
from ace_lab.eval.metrics.table import answer_scores
from ace_lab.eval.studies.identity import RunIdentity, short_identity
from ace_lab.eval.studies.jsonl import ERRORS_SUFFIX as ERRORS_SUFFIX  # re-exported for callers
from ace_lab.eval.studies.jsonl import ResultsError, read_jsonl, record_files
from ace_lab.eval.studies.jsonl import cut_torn_tail as cut_torn_tail
from ace_lab.eval.studies.record import with_metrics
from ace_lab.methods.final_answer import extract_final_answer

if TYPE_CHECKING:  # only a type here: reading results never needs the LLM client
    from ace_lab.llm import LLM

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"


class StudyMismatchError(ResultsError, DataError):
    """A run's model or method configuration differs from the one a study's records of the
    method were made with (a ``DataError``: the command line prints it as one line)."""


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
    is an error. Another method may have another answering model (a model comparison is a
    study; recorded per method and logged), but a method's entry is never rewritten for
    another model while its records exist: :class:`StudyMismatchError`.
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
    held = previous.get("model_identity")
    records = directory / f"{safe_name(method)}.jsonl"
    if held not in (None, llm.model_identity) and read_jsonl(records):
        # Another model's records stay described by their own entry (runner.choose_study).
        raise StudyMismatchError(
            f"{path}: {method} was answered by {short_identity(held)}, not "
            f"{short_identity(llm.model_identity)}; use another --study"
        )
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


# ------------------------------------------------------------------------------- identities
Identity = tuple[str | None, str | None]  # (model_identity, config_hash); None: unknown


def _manifest_of(directory: Path) -> dict[str, Any]:
    path = Path(directory) / MANIFEST
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _identities(
    records: Iterable[dict[str, Any]], manifest: dict[str, Any], method: str
) -> Counter[Identity]:
    """(model identity, config hash) → records of ``method``; a record without the fields
    (written before they existed) takes what the manifest's entry for the method names."""
    entry = manifest.get("methods", {}).get(method, {})
    model = _text(entry.get("model_identity", manifest.get("model_identity")))
    config = _text(entry.get("config_hash"))
    return Counter(
        (_text(r.get("model_identity")) or model, _text(r.get("config_hash")) or config)
        for r in records
    )


def _text(value: Any) -> str | None:
    """A non-empty string, else None (a frame's missing value is NaN, not None)."""
    return value if isinstance(value, str) and value else None


def method_identities(directory: Path, method: str) -> Counter[Identity]:
    """The identities of ``method``'s records in the study folder ``directory`` (a torn last
    line is cut first, as the run that asks is about to)."""
    records = read_jsonl(Path(directory) / f"{safe_name(method)}.jsonl", repair_tail=True)
    return _identities(records, _manifest_of(directory), method)


def identity_conflict(directory: Path, method: str, identity: RunIdentity) -> str | None:
    """Why a run with ``identity`` may not append to ``method``'s records in ``directory``
    (one line), or None when every record it holds has the same model and configuration.
    An unknown configuration hash (records from before hashes) is no conflict."""
    for model, config in method_identities(directory, method):
        if model not in (None, identity.model_identity):
            return (
                f"{Path(directory) / MANIFEST}: {method} was answered by "
                f"{short_identity(model)}, not {short_identity(identity.model_identity)}"
            )
        if config not in (None, identity.config_hash):
            return (
                f"{Path(directory) / MANIFEST}: {method} ran with configuration {config}, "
                f"not {identity.config_hash} (its settings changed)"
            )
    return None


def study_models(directory: Path) -> set[str]:
    """The short model labels a study's manifest names (its methods' and its own)."""
    manifest = _manifest_of(directory)
    labels = {str(e["model"]) for e in manifest.get("methods", {}).values() if e.get("model")}
    return labels | ({str(manifest["model"])} if manifest.get("model") else set())


def identity_mix(data: pd.DataFrame | str | Path, settings: Settings | None = None) -> list[str]:
    """One warning line per method whose records name more than one model identity or more
    than one configuration hash; [] for a study that is consistent per method.

    ``data`` is a study name, a study folder, or a results frame (from :func:`load_results`,
    whose ``attrs["study_dir"]`` lets records without the fields take the manifest's identity).
    """
    if isinstance(data, pd.DataFrame):
        directory = data.attrs.get("study_dir")
        manifest = _manifest_of(Path(directory)) if directory else {}
        if data.empty or "method" not in data:
            return []
        groups = {m: g.to_dict("records") for m, g in data.groupby("method", sort=False)}
    else:
        folder = Path(data) if Path(data).is_dir() else study_dir(str(data), settings)
        manifest = _manifest_of(folder)
        groups = {}
        for path in record_files(folder):
            for rec in read_jsonl(path):
                groups.setdefault(str(rec.get("method", path.stem)), []).append(rec)
    warnings = []
    for method, records in groups.items():
        counts = _identities(records, manifest, method)
        for position, what in ((0, "models"), (1, "configurations")):
            seen: Counter[str] = Counter()
            for key, count in counts.items():
                if key[position] is not None:
                    seen[key[position]] += count
            if len(seen) > 1:
                parts = ", ".join(f"{short_identity(k, 60)} ({c})" for k, c in seen.items())
                warnings.append(f"{method}: records of {len(seen)} {what}: {parts}")
    return warnings


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
    # old records: the metrics they lack, as far as their contexts and the data set allow
    frame = with_metrics(results_frame(records), directory)
    frame.attrs["study_dir"] = str(directory)  # identity_mix reads the manifest's identities
    return frame


def latest_study(settings: Settings | None = None) -> str:
    """The most recently modified study under ``results_dir`` (for reports and benches)."""
    root = Path((settings or load_settings()).results_dir)
    candidates = root.iterdir() if root.is_dir() else []
    studies = [p for p in candidates if p.is_dir() and any(p.glob("*.jsonl"))]
    if not studies:
        raise FileNotFoundError(f"no studies with results under {root}")
    return max(studies, key=lambda p: max(f.stat().st_mtime for f in p.glob("*.jsonl"))).name


def rescore(study: str, settings: Settings | None = None) -> dict[str, int]:
    """Re-extract QA answers from the stored raw generations and recompute their scores (the
    answer rows of :mod:`ace_lab.eval.metrics.table`: EM, F1), in place.

    For when answer extraction improves after a run: the generations, contexts and costs stay
    as measured; only ``answer`` and its scores follow the current ``extract_final_answer``.
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
            rec.update(answer_scores(rec))
        tmp = path.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
        tmp.replace(path)
        changed[path.stem] = count
    return changed
