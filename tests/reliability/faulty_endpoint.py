"""A faulty endpoint: LLM calls through a fault-injecting proxy (see ``fault_proxy``).

Row "endpoint at 20 % faults": calls through :class:`ace_lab.llm.LLM` — plain ``chat``,
schema-validated ``json`` and an ``llm.map`` batch — and an evaluation run
(:func:`ace_lab.eval.studies.runner.run`, NaiveRAG over the toy set) go through a proxy that turns
20 % of requests into timeouts, 429 with ``Retry-After``, 500, connection resets, empty choices and
truncated JSON bodies. An attempt (one call, or one question of the run) *holds* when it finished
with the upstream's answer, sent at most ``max_retries + 1`` requests, logged each retry with its
tag, and left a correct cache entry. Any cache row that is not the upstream's answer for its
request (a failure that was cached) counts as a failure too.

Row "endpoint at 100 % faults": every request faults. An attempt holds when the call fails with
an :class:`~ace_lab.llm.LLMError` naming the endpoint (credentials masked) and the call's tag
within ``max_retries + 1`` requests and nothing of it is written (no cache entry; for the run,
no result record) — and, once the proxy heals (rate 0), the same call succeeds (for the run:
every question has exactly one record, equal to an uninterrupted run's).

The retry budget is sized to the fault rate: at 20 % independent faults a call fails with
probability 0.2 ** (max_retries + 1), so ``max_retries=6`` makes that 1.3e-5 per call.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ace_lab.config import LLMSettings, Settings
from ace_lab.llm import LLM, LLMError, schema_format
from tests.reliability.fault_proxy import (
    FAULTS,
    FakeUpstream,
    FaultProxy,
    expected_answer,
    prompt_hash,
)

CALLS_FULL, CALLS_FAST = 300, 40  # LLM calls per row (plus the toy run's 8 questions)
TIMEOUT_S, HANG_S = 0.4, 1.0  # the client's timeout; how long a "timeout" fault holds
MAX_RETRIES_20, MAX_RETRIES_100 = 6, 2
PASSWORD = "pw-faulty-endpoint"  # in the base URL: error messages must mask it
KINDS = ("chat", "json", "map")


class Answer(BaseModel):
    answer: str


@dataclass(frozen=True)
class Call:
    kind: str  # chat | json | map (a chat call inside an llm.map batch)
    tag: str
    messages: list[dict[str, str]]

    @property
    def prompt(self) -> str:
        return prompt_hash(self.messages)

    @property
    def expected(self) -> str:
        request = {"messages": self.messages, "response_format": self.kind == "json" or None}
        return expected_answer(request)


def make_calls(n: int, label: str) -> list[Call]:
    return [
        Call(
            KINDS[i % 3],
            f"faults.{label}.{KINDS[i % 3]}.{i}",
            [
                {"role": "system", "content": "Answer briefly."},
                {"role": "user", "content": f"{label} question {i}: where is lantern {i}?"},
            ],
        )
        for i in range(n)
    ]


def make_settings(root: Path, url: str, max_retries: int) -> Settings:
    return Settings(
        cache_dir=root / "cache",
        results_dir=root / "results",
        figures_dir=root / "figures",
        graphs_dir=root / "graphs",
        llm=LLMSettings(
            base_url=url,
            model="fake",
            api_key="sk-none",
            timeout_s=TIMEOUT_S,
            max_retries=max_retries,
            retry_backoff_s=0.01,
            retry_wait_max_s=0.05,  # Retry-After asks 1 s: honoured up to this cap
            concurrency=4,
        ),
    )


def credentialed(url: str) -> str:
    return url.replace("http://", f"http://tester:{PASSWORD}@")


class RetryLog(logging.Handler):
    """Counts the client's retry records per call tag."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.by_tag: Counter[str] = Counter()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        tag = getattr(record, "llm_tag", None)
        if tag is not None:
            self.by_tag[tag] += 1
            self.messages.append(record.getMessage())

    def __enter__(self) -> RetryLog:
        logger = logging.getLogger("ace_lab.llm.client")
        self._level = logger.level
        if logger.getEffectiveLevel() > logging.WARNING:
            logger.setLevel(logging.WARNING)
        logger.addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logger = logging.getLogger("ace_lab.llm.client")
        logger.removeHandler(self)
        logger.setLevel(self._level)


# ------------------------------------------------------------------------------ calls
def run_call(llm: LLM, call: Call) -> str:
    """The call's text (a json call's value, as the upstream's JSON); raises on failure."""
    if call.kind == "json":
        result = llm.json(call.messages, Answer, tag=call.tag, default=Answer(answer=""))
        if result.fallback:
            raise RuntimeError(f"{call.tag}: fell back: {result.errors}")
        return json.dumps({"answer": result.value.answer})
    return llm.chat(call.messages, tag=call.tag).text


def run_calls(llm: LLM, calls: list[Call]) -> dict[str, str | BaseException]:
    """Every call's text or exception: chat and json one by one, the map calls as one batch."""
    out: dict[str, str | BaseException] = {}
    batch = [c for c in calls if c.kind == "map"]
    for call in calls:
        if call.kind != "map":
            try:
                out[call.tag] = run_call(llm, call)
            except Exception as exc:
                out[call.tag] = exc
    if batch:
        try:
            for call, text in zip(batch, llm.map(lambda c: run_call(llm, c), batch), strict=True):
                out[call.tag] = text
        except Exception as exc:  # a batch fails as one
            out.update({call.tag: exc for call in batch})
    return out


def cache_key_of(llm: LLM, call: Call) -> str:
    from ace_lab.llm import cache_key

    fmt = schema_format(Answer) if call.kind == "json" else None
    return cache_key(llm.request(call.messages, response_format=fmt))


def bad_cache_rows(path: Path) -> int:
    """Cache rows whose text is not the upstream's answer to their request."""
    if not path.is_file():
        return 0
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT request, text FROM responses").fetchall()
    return sum(text != expected_answer(json.loads(request)) for request, text in rows)


def requests_per_prompt(proxy: FaultProxy) -> dict[str, Counter[str]]:
    """For each prompt: how many requests each distinct body (one chat call) got."""
    out: dict[str, Counter[str]] = {}
    for seen in proxy.seen:
        out.setdefault(seen.prompt, Counter())[seen.key] += 1
    return out


# ------------------------------------------------------------------------------ the toy run
def toy_graph() -> Any:
    """A chunk-only graph of the toy corpus with hash embeddings (NaiveRAG needs no more)."""
    from ace_lab.data import chunk_passages, load_dataset
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.graph.tables import GraphTables
    from ace_lab.retrieval import RetrievalGraph
    from tests.support.embedders import fake_vectors

    class HashEmbedder:
        model_id, dim = "test:hash", 16

        def encode(self, texts: list[str]) -> Any:
            return fake_vectors(texts, self.dim)

    nodes = [
        {"id": c.id, "label": "Chunk", "name": c.title, "description": c.text, "source_ids": [c.id]}
        for c in chunk_passages(load_dataset("toy").passages)
    ]
    tables = GraphTables.from_records(nodes, [], {"family": "test"})
    embedder = HashEmbedder()
    indexes = build_seed_indexes(tables, embedder, progress=False, cache=False)
    return RetrievalGraph(tables, indexes, name="toy", embedder=embedder)


def toy_run(llm: LLM, graph: Any, study: str) -> tuple[Any, Path]:
    from ace_lab.eval.studies.runner import run

    frame = run(
        "naive",
        "toy",
        8,
        study=study,
        settings=llm.settings,
        llm=llm,
        graph=graph,
        progress=False,
    )
    return frame, llm.settings.results_dir / study


RECORD_FIELDS = ("id", "position", "answer", "raw", "context_ids", "em", "f1")


def records(folder: Path) -> list[dict[str, Any]]:
    path = folder / "naive.jsonl"
    lines = path.read_text().splitlines() if path.is_file() else []
    return [{k: json.loads(line).get(k) for k in RECORD_FIELDS} for line in lines if line]


# ------------------------------------------------------------------------------ rows
def at_20_percent(n: int, root: Path, graph: Any) -> tuple[dict[str, Any], Counter[str]]:
    limit = MAX_RETRIES_20 + 1
    with FakeUpstream() as upstream, RetryLog() as retries:
        proxy = FaultProxy(upstream.url, rate=0.2, hang_s=HANG_S, retry_after_s=1.0, seed=20)
        with proxy:
            llm = LLM(make_settings(root, proxy.url, MAX_RETRIES_20))
            calls = make_calls(n, "twenty")
            results = run_calls(llm, calls)
            frame, folder = toy_run(llm, graph, "faults-20")
    per_prompt = requests_per_prompt(proxy)
    faulted = Counter(seen.prompt for seen in proxy.seen if seen.fault)
    held, problems = 0, Counter()
    for call in calls:
        sent = per_prompt.get(call.prompt, Counter())
        hit = llm.cache.get(cache_key_of(llm, call)) if llm.cache else None
        checks = {
            "wrong or no answer": results.get(call.tag) == call.expected,
            "over the retry bound": max(sent.values(), default=0) <= limit,
            # every fault the proxy injected into this prompt's requests was retried, and
            # logged: counted from what the proxy decided, not from timing (under load a
            # healthy but slow reply can also time out and be retried, within the bound)
            "retry not logged": faulted.get(call.prompt, 0)
            <= retries.by_tag[call.tag]
            <= MAX_RETRIES_20,
            "not cached": hit is not None and hit.text == call.expected,
        }
        problems.update(name for name, ok in checks.items() if not ok)
        held += all(checks.values())
    written = records(folder)
    questions_held = len({r["id"] for r in written}) if len(written) == 8 else 0
    over_bound = sum(c > limit for counts in per_prompt.values() for c in counts.values())
    bad = bad_cache_rows(llm.cache.path)
    attempts = n + 8
    held += questions_held
    failed = attempts - held + bad + over_bound
    faults = proxy.fault_counts()
    note = (
        f"{len(proxy.seen)} requests, {sum(faults.values())} faulted "
        f"({', '.join(f'{k} {faults[k]}' for k in FAULTS)}); max_retries={MAX_RETRIES_20}; "
        f"{sum(retries.by_tag.values())} retries logged; run: {len(written)} records, "
        f"{frame.attrs.get('errors')} errors; bad cache rows {bad}"
        + (f"; problems {dict(problems)}" if problems else "")
    )
    row = {"property": "endpoint at 20 % faults", "attempts": attempts, "held": held,
           "failed": failed, "note": note}  # fmt: skip
    return row, faults


def _names_the_call(exc: BaseException, tags: list[str], endpoint: str) -> bool:
    text = str(exc)
    return (
        isinstance(exc, LLMError)
        and any(repr(t) in text for t in tags)
        and endpoint in text
        and PASSWORD not in text
    )


def at_100_percent(n: int, root: Path, graph: Any) -> tuple[dict[str, Any], Counter[str]]:
    limit = MAX_RETRIES_100 + 1
    with FakeUpstream() as upstream, RetryLog():
        proxy = FaultProxy(upstream.url, rate=1.0, hang_s=HANG_S, retry_after_s=1.0, seed=100)
        with proxy:
            llm = LLM(make_settings(root, credentialed(proxy.url), MAX_RETRIES_100))
            endpoint = proxy.url.replace("http://", "http://***@")
            calls = make_calls(n, "hundred")
            dead = run_calls(llm, calls)
            cached_while_dead = sum(
                llm.cache.get(cache_key_of(llm, c)) is not None for c in calls if llm.cache
            )
            dead_frame, folder = toy_run(llm, graph, "faults-100")
            dead_records = records(folder)
            errors_file = folder / "naive.errors.jsonl"
            errors = errors_file.read_text().splitlines() if errors_file.is_file() else []
            per_prompt = requests_per_prompt(proxy)
            proxy.rate = 0.0  # the endpoint heals
            healed = run_calls(llm, calls)
            _, folder = toy_run(llm, graph, "faults-100")
            resumed = records(folder)
            _, clean_folder = toy_run(llm, graph, "faults-clean")
            clean = records(clean_folder)
    batch_tags = [c.tag for c in calls if c.kind == "map"]
    held = 0
    for call in calls:
        sent = per_prompt.get(call.prompt, Counter())
        tags = batch_tags if call.kind == "map" else [call.tag]
        failed_clearly = _names_the_call(dead[call.tag], tags, endpoint)
        # A map item not started when the batch failed sends nothing: that is bounded too.
        bounded = max(sent.values(), default=0) <= limit
        resumes = healed.get(call.tag) == call.expected
        held += failed_clearly and bounded and resumes
    # A run in which every question failed writes nothing (no records, no errors file) and
    # returns its first error, which names the call and the endpoint without the password.
    first_error = str(dead_frame.attrs.get("first_error"))
    run_dead_clean = (
        not dead_records
        and dead_frame.attrs.get("errors") == 8
        and not errors
        and "'generate.qa'" in first_error
        and endpoint in first_error
        and PASSWORD not in first_error
    )
    by_id = sorted(resumed, key=lambda r: r["id"])
    run_resumed = len({r["id"] for r in resumed}) == len(resumed) == 8
    run_equal = by_id == sorted(clean, key=lambda r: r["id"])
    questions_held = 8 if run_dead_clean and run_resumed and run_equal else 0
    bad = bad_cache_rows(llm.cache.path) + cached_while_dead
    attempts = n + 8
    held += questions_held
    note = (
        f"every call failed with LLMError naming {endpoint} and its tag: {held - questions_held}"
        f"/{n}; run while dead: {len(dead_records)} records, {len(errors)} error lines written; "
        f"after healing: {len(resumed)} records (equal to a clean run: {run_equal}); cache entries "
        f"written while dead {cached_while_dead}, bad cache rows {bad - cached_while_dead}"
    )
    row = {"property": "endpoint at 100 % faults", "attempts": attempts, "held": held,
           "failed": attempts - held + bad, "note": note}  # fmt: skip
    return row, proxy.fault_counts()


def measure(full: bool) -> list[dict[str, Any]]:
    n = CALLS_FULL if full else CALLS_FAST
    graph = toy_graph()
    with tempfile.TemporaryDirectory(prefix="ace-faults-") as tmp:
        twenty, faults_20 = at_20_percent(n, Path(tmp) / "twenty", graph)
        hundred, faults_100 = at_100_percent(max(6, n // 5), Path(tmp) / "hundred", graph)
    missing = [f for f in FAULTS if not (faults_20 + faults_100)[f]]
    if missing:  # every kind of fault must have been exercised
        hundred["failed"] += len(missing)
        hundred["note"] += f"; fault kinds never injected: {missing}"
    return [twenty, hundred]
