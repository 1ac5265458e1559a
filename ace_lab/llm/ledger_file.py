"""The ledger of this machine's model calls: one JSON line per call that reached the model.

The in-memory :class:`~ace_lab.llm.ledger.Ledger` lives as long as its client; estimates need
what this machine's calls cost over weeks of builds and runs. Every call an
:class:`~ace_lab.llm.LLM` with a response cache sends to the model (never a cache hit) is
appended to ``<cache_dir>/llm_ledger.jsonl`` (:data:`LEDGER_FILE`) as a :class:`LedgerEntry`:
the model identity (weights, server build and the settings that change its arithmetic), the
caller's tag, prompt and generated tokens, the prompt tokens the server reused from its own KV
cache, the *service* seconds of the send (timed around the request alone: neither a retry's
wait nor the time spent queueing for a slot of the client's own gate), and how many of the
client's requests were in flight when it was sent. A call sent while others were in flight
shares the one-slot local server with them, so its seconds are not its own cost:
:mod:`ace_lab.eval.studies.throughput` fits speeds on solo calls and on the gaps between the
completions of queued ones.

Appends are one ``write`` of one line under a lock (and ``O_APPEND``), so threads and processes
never interleave lines; a torn last line (a crash mid-write) is skipped when read.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

LEDGER_FILE = "llm_ledger.jsonl"
_LOCK = threading.Lock()
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LedgerEntry:
    """One model call, as the ledger file keeps it (module docstring)."""

    time: str
    model_identity: str
    tag: str
    prompt_tokens: int
    completion_tokens: int
    server_cached_tokens: int
    latency_s: float
    in_flight: int = 1


def ledger_path(cache_dir: Path | str) -> Path:
    """The ledger file under a cache directory."""
    return Path(cache_dir) / LEDGER_FILE


def append_entry(path: Path, entry: LedgerEntry) -> None:
    """Append ``entry`` as one line (the folder is created when missing)."""
    line = json.dumps(asdict(entry), sort_keys=True) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with _LOCK, path.open("a", encoding="utf-8") as out:
        out.write(line)


def read_ledger(path: Path, identity: str | None = None) -> list[LedgerEntry]:
    """The entries of a ledger file (of model ``identity`` only, when given), in file order;
    empty when there is no file. Lines that do not parse (a torn write) are skipped."""
    if not path.is_file():
        return []
    names = {f.name for f in fields(LedgerEntry)}
    entries = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            raw = json.loads(line)
            entry = LedgerEntry(**{k: v for k, v in raw.items() if k in names})
        except (ValueError, TypeError):
            continue
        if identity is None or entry.model_identity == identity:
            entries.append(entry)
    return entries


def log_model_call(
    llm: Any, tag: str, parts: tuple[str, int, int, int], seconds: float, in_flight: int
) -> None:
    """Append one model call of ``llm`` (reply, prompt, generated and server-cached tokens in
    ``parts``; service ``seconds``) to its ledger file, where it keeps a response cache (a
    client without one, or an injected client without a model identity of its own, such as a
    test's scripted one, writes nothing). A ledger that cannot be written is logged, never an
    error of the call."""
    if getattr(llm, "cache", None) is None or llm.model_identity.startswith("injected:"):
        return  # no cache, or a scripted client's replies: not this machine's model
    entry = LedgerEntry(
        datetime.now(UTC).isoformat(timespec="seconds"),
        llm.model_identity,
        tag,
        parts[1],
        parts[2],
        parts[3],
        round(seconds, 4),
        in_flight,
    )
    try:
        append_entry(ledger_path(llm.settings.cache_dir), entry)
    except OSError as exc:
        log.warning("cannot append to the LLM ledger: %s", exc)
