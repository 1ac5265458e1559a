"""Secrets never written: a sentinel API key and a sentinel password in the base URL, set through
the environment as a user would, must not appear anywhere ace_lab writes or shows.

Two configurations run — a base URL carrying ``user:password`` (HTTP Basic auth) and a plain one
(the key as a Bearer token) — each through the fault proxy in front of the fake upstream (see
``fault_proxy``): chat, json and ``llm.map`` calls at 30 % faults (so retries are logged), calls
at 100 % faults (so errors are raised and recorded), an evaluation run that fails while the
endpoint is dead and resumes once it heals (result records, error records and ``manifest.json``
through :mod:`ace_lab.eval.studies.study`), the ledger written as CSV, the responses archived, and
every
log record of every logger at DEBUG (httpx and openai included) captured and written to a file.

Places checked: the repr/str of the settings and of an OpenAI embedder, every exception message
and traceback, every log record, and every file written (the SQLite cache with its WAL, results,
errors, manifest, ledger, archive, log). A place *fails* when it contains a sentinel: the key, the
password, or the Basic credentials as base64.
"""

from __future__ import annotations

import base64
import logging
import os
import tempfile
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ace_lab.config import load_settings
from ace_lab.embed.backends import make_embedder
from ace_lab.llm import LLM, ResponseArchive
from tests.reliability.fault_proxy import FakeUpstream, FaultProxy
from tests.reliability.faulty_endpoint import make_calls, run_calls, toy_graph, toy_run

PROPERTY = "secrets never written"
KEY = "sk-sentinel-KEY-3f9a1c"
USER = "sentinel-user"
PASSWORD = "pw-sentinel-PASS-8d2e7b"
SENTINELS = (KEY, PASSWORD, base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode())
CALLS_FULL, CALLS_FAST = 60, 12


@contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Capture(logging.Handler):
    """Every record of every logger, formatted with its traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))

    @contextmanager
    def everything(self) -> Iterator[Capture]:
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.DEBUG)
        root.addHandler(self)
        try:
            yield self
        finally:
            root.removeHandler(self)
            root.setLevel(level)


def exception_texts(exc: BaseException) -> list[str]:
    return [str(exc), repr(exc), "".join(traceback.format_exception(exc))]


def one_configuration(root: Path, with_password: bool, n: int, graph: Any) -> list[str]:
    """Run everything under one configuration; the texts of the places it did not write."""
    texts: list[str] = []
    with FakeUpstream() as upstream:
        proxy = FaultProxy(upstream.url, rate=0.3, hang_s=1.0, retry_after_s=1.0, seed=7)
        with proxy:
            url = proxy.url
            if with_password:
                url = url.replace("http://", f"http://{USER}:{PASSWORD}@")
            env = {
                "OPENAI_API_KEY": KEY,
                "ACE_LAB_LLM_BASE_URL": url,
                "ACE_LAB_LLM_MODEL": "fake",
                "ACE_LAB_LLM_TIMEOUT": "0.4",
                "ACE_LAB_LLM_MAX_RETRIES": "4",
                "ACE_LAB_LLM_RETRY_BACKOFF": "0.01",
                "ACE_LAB_LLM_RETRY_WAIT_MAX": "0.05",
                "ACE_LAB_EMBED_BACKEND": "openai",
                "ACE_LAB_EMBED_MODEL": "fake-embed",
                "ACE_LAB_EMBED_BASE_URL": url,
                **{
                    f"ACE_LAB_{name.upper()}_DIR": str(root / name)
                    for name in ("cache", "results", "figures", "graphs")
                },
            }
            with environment(env):
                settings = load_settings()
                embedder = make_embedder(settings.embed)
            texts += [repr(settings), str(settings), repr(settings.llm), repr(settings.embed)]
            texts.append(repr(embedder))
            llm = LLM(settings)
            # 30 % faults: retries logged; some calls may still fail: their errors are places
            results = run_calls(llm, make_calls(n, "secret"))
            proxy.rate = 1.0  # dead: every call fails, every question of the run fails
            results |= run_calls(llm, make_calls(max(3, n // 4), "dead"))
            toy_run(llm, graph, "secrets")
            proxy.rate = 0.0  # healed: the run resumes and writes its records
            toy_run(llm, graph, "secrets")
    texts += [
        t for r in results.values() if isinstance(r, BaseException) for t in exception_texts(r)
    ]
    texts += [repr(c) for c in llm.ledger.calls if c.error]
    llm.ledger.frame().to_csv(root / "ledger.csv", index=False)
    ResponseArchive.write(root / "archive.jsonl", llm.answered)
    return texts


def leaks(data: str | bytes) -> bool:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return any(s.encode() in raw for s in SENTINELS)


def measure(full: bool) -> list[dict[str, Any]]:
    n = CALLS_FULL if full else CALLS_FAST
    graph = toy_graph()
    texts: list[str] = []
    capture = Capture()
    with tempfile.TemporaryDirectory(prefix="ace-secrets-") as tmp, capture.everything():
        for with_password in (True, False):
            root = Path(tmp) / ("basic" if with_password else "bearer")
            texts += one_configuration(root, with_password, n, graph)
        log_file = Path(tmp) / "captured.log"
        log_file.write_text("\n".join(capture.lines), encoding="utf-8")
        files = sorted(p for p in Path(tmp).rglob("*") if p.is_file())
        leaked_files = [p.relative_to(tmp).as_posix() for p in files if leaks(p.read_bytes())]
    leaked_texts = [t for t in texts if leaks(t)]
    leaked_logs = [line for line in capture.lines if leaks(line)]
    attempts = len(files) + len(texts) + len(capture.lines)
    failed = len(leaked_files) + len(leaked_texts) + len(leaked_logs)
    note = (
        f"{len(files)} files, {len(texts)} reprs and exception texts, {len(capture.lines)} log "
        f"records checked for the key, the URL password and its Basic form"
    )
    if failed:
        shown = leaked_files[:3] + [t[:80] for t in (leaked_texts + leaked_logs)[:3]]
        note += f"; leaked in {shown}"
    return [
        {
            "property": PROPERTY,
            "attempts": attempts,
            "held": attempts - failed,
            "failed": failed,
            "note": note,
        }
    ]
