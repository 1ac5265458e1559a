"""A graph build's log: one line per run of the builder in the run folder's ``build_log.jsonl``.

A large corpus is built over several sessions on a small machine: each run resumes from the
per-chunk records and the archived responses, and ``meta.json`` (written once, at the end)
can only time the last run. The log keeps every run — finished, interrupted or failed — with
its wall time, the chunks extracted before and after it, and the model calls it made, so a
finished build states what it took in all (:func:`build_log_summary`, kept in ``meta.json``).
A run killed outright (``kill -9``, power loss) ends no Python block and leaves no line.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ace_lab.graph.extract import read_records
from ace_lab.llm import LLM

BUILD_LOG = "build_log.jsonl"
#: Every family's first stage writes its per-chunk records to a file with this ending.
EXTRACTION_RECORDS = "*_extract.jsonl"


def extracted_chunks(folder: Path) -> int:
    """How many chunks the run folder's extraction records hold."""
    return len({cid for path in folder.glob(EXTRACTION_RECORDS) for cid in read_records(path)})


@contextmanager
def logged_run(folder: Path, llm: LLM) -> Iterator[None]:
    """Append one line to the build log when the block ends, however it ends."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.perf_counter()
    chunks_before = extracted_chunks(folder)
    calls_before = len(llm.ledger.calls)
    outcome = "failed"
    try:
        yield
        outcome = "finished"
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM turned into one by ``ace-lab build``
        outcome = "interrupted"
        raise
    finally:
        calls = llm.ledger.calls[calls_before:]
        made = [c for c in calls if not c.cache_hit and c.error is None]
        entry = {
            "started": started,
            "outcome": outcome,
            "wall_s": round(time.perf_counter() - clock, 1),
            "chunks_extracted_before": chunks_before,
            "chunks_extracted_after": extracted_chunks(folder),
            "model_calls": len(made),
            "replayed_calls": sum(c.cache_hit for c in calls),
            "failed_calls": sum(c.error is not None for c in calls),
            "prompt_tokens": sum(c.prompt_tokens for c in made),
            "completion_tokens": sum(c.completion_tokens for c in made),
            "model_identity": llm.model_identity,
        }
        with (folder / BUILD_LOG).open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


def read_build_log(folder: Path) -> list[dict[str, Any]]:
    """The runs a build log records, oldest first (a torn last line is skipped)."""
    path = folder / BUILD_LOG
    if not path.is_file():
        return []
    runs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            runs.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return runs


def build_log_summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """What the logged runs took together: runs, wall time, model calls and tokens. Chunks
    extracted before the first logged run were extracted by runs the log does not know."""
    if not runs:
        return {}
    return {
        "runs": len(runs),
        "wall_s": round(sum(r["wall_s"] for r in runs), 1),
        "model_calls": sum(r["model_calls"] for r in runs),
        "prompt_tokens": sum(r["prompt_tokens"] for r in runs),
        "completion_tokens": sum(r["completion_tokens"] for r in runs),
        "chunks_extracted_before_the_log": runs[0]["chunks_extracted_before"],
    }
