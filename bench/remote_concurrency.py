"""Requests in flight against a remote endpoint: build and run wall time at 1, 4, 16 and 64.

Serves an OpenAI-compatible endpoint on 127.0.0.1 (:class:`SlowEndpoint`, a
``tests.reliability.fault_proxy.FakeUpstream`` with a latency and injected faults) that answers
every request deterministically after ``--latency`` seconds: an OpenIE extraction request gets
entities and a triple read off its chunk, any other request the fake upstream's answer. A share
``--faults`` of requests (decided by a hash of the body and how often it was seen) gets 429 with
``Retry-After``. The server is bounded: it refuses requests past ``--max-requests`` and stops
itself after ``--lifetime`` seconds.

For each number of requests in flight k (``settings.llm.concurrency = k``; fresh cache and
results folders per k, so every k sends every request):

* build: the real OpenIE graph build (:func:`ace_lab.graph.openie.build_openie`, hash
  embeddings) of ``--chunks`` synthetic chunks, one extraction call per chunk;
* run: :func:`ace_lab.eval.studies.runner.run` of NaiveRAG over the toy graph for
  ``--questions`` questions (the toy set's, repeated with numbered variants), k in flight.

It checks that nothing is lost or duplicated: one extraction record and one result record per
chunk and question, the same results as at k=1, one cache row per distinct request and each
holding the upstream's answer (a 429 is never cached), and that the server never saw more than
k requests at once. ``latency floor`` is the least wall time k in flight allow,
``ceil(n / k) * latency``; ``ideal`` the speed-up if every call took just the latency,
``n / ceil(n / k)``; ``CPU s`` the processor time the bench process (client and server) used:
where it nears ``wall``, the run waited for the processor, not for the endpoint. On a loaded
machine the k=1 wall time carries every thread wake-up in series, so a speed-up can exceed
``ideal``: compare ``wall`` with ``latency floor`` too.

    .venv/bin/python bench/remote_concurrency.py            # 0.3 s latency, about 2 minutes
    .venv/bin/python bench/remote_concurrency.py --full     # 1 s latency, about 6 minutes
    .venv/bin/python bench/remote_concurrency.py --full --out results/bench/remote_concurrency
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import logging
import math
import re
import socket
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ace_lab.config import LLMSettings, Settings  # noqa: E402
from ace_lab.data import Chunk, load_dataset  # noqa: E402
from ace_lab.llm import LLM  # noqa: E402
from bench import record  # noqa: E402
from bench.remote_concurrency_report import report_parts  # noqa: E402
from tests.reliability.fault_proxy import FakeUpstream, canonical, expected_answer  # noqa: E402
from tests.reliability.faulty_endpoint import toy_graph  # noqa: E402

LEVELS = (1, 4, 16, 64)
_WORD = re.compile(r"\b[A-Z][a-z]{2,}\b")


def extraction(request: dict[str, Any]) -> str:
    """An OpenIE answer for the chunk in ``request``: its first capitalised words, one triple."""
    text = " ".join(str(m.get("content", "")) for m in request.get("messages", [])[1:])
    names = list(dict.fromkeys(_WORD.findall(text)))[:4] or ["Nothing"]
    triples = [[names[0], "appears with", names[1]]] if len(names) > 1 else []
    return json.dumps({"named_entities": names, "triples": triples})


def answer_of(request: dict[str, Any]) -> str:
    """What :class:`SlowEndpoint` answers for ``request`` (also what the cache must hold)."""
    schema = json.dumps(request.get("response_format") or {})
    if '"named_entities"' in schema and '"triples"' in schema:
        return extraction(request)
    return expected_answer(request)


class SlowEndpoint(FakeUpstream):
    """:class:`FakeUpstream` after ``latency_s``, with a share ``faults`` of 429 answers.

    ``peak`` is the most requests it was answering at once; ``rate_limited`` the 429s sent.
    """

    def __init__(
        self, latency_s: float, faults: float, retry_after_s: float, max_requests: int, **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.latency_s, self.faults, self.retry_after_s = latency_s, faults, retry_after_s
        self.max_requests = max_requests
        self.current = self.peak = self.rate_limited = 0
        self._seen: dict[str, int] = {}
        self._gate = threading.Lock()
        handler = self._server.RequestHandlerClass

        class NoDelay(handler):  # type: ignore[misc, valid-type]
            # Headers and body go out in two writes: with Nagle on, the body waits for the
            # client's delayed ACK (~40 ms a request), which would swamp the latency under test.
            def setup(self) -> None:
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                super().setup()

        self._server.RequestHandlerClass = NoDelay

    def _fault(self, body: bytes) -> bool:
        key = canonical(body)
        with self._gate:
            seen = self._seen[key] = self._seen.get(key, 0) + 1
        digest = hashlib.sha256(f"{seen}:{key}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < self.faults

    def handle_post(self, h: Any, body: bytes) -> None:
        with self._gate:
            self.requests += 1
            over = self.requests > self.max_requests
            self.current += 1
            self.peak = max(self.peak, self.current)
        try:
            if over:
                h.send_json(400, {"error": {"message": "request budget of the bench spent"}})
                return
            time.sleep(self.latency_s)
            if self._fault(body):
                with self._gate:
                    self.rate_limited += 1
                error = {"error": {"message": "rate limited (bench)", "type": "rate_limit"}}
                h.send_json(429, error, {"Retry-After": f"{self.retry_after_s:g}"})
                return
            request = json.loads(body)
            text = answer_of(request)
            h.send_json(
                200,
                {
                    "id": "chatcmpl-bench",
                    "object": "chat.completion",
                    "created": 0,
                    "model": request.get("model", "fake"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
                },
            )
        finally:
            with self._gate:
                self.current -= 1


def synthetic_chunks(n: int) -> list[Chunk]:
    """``n`` chunks cut from the toy corpus's passages, each numbered (so each is one request)."""
    passages = load_dataset("toy").passages
    return [
        Chunk(
            id=f"bench-{i:04d}",
            doc_id=f"bench-{i:04d}",
            title=f"{passages[i % len(passages)].title} {i}",
            text=f"Part {i}. {passages[i % len(passages)].text}",
            index=0,
        )
        for i in range(n)
    ]


def bench_questions(n: int) -> list[Any]:
    """``n`` questions: the toy set's, then numbered variants of them."""
    base = load_dataset("toy").questions
    return [
        dataclasses.replace(
            base[i % len(base)],
            id=f"{base[i % len(base)].id}-v{i}",
            question=f"{base[i % len(base)].question} (variant {i})",
        )
        for i in range(n)
    ]


def settings_for(root: Path, url: str, k: int, retry_wait_max_s: float) -> Settings:
    return Settings(
        cache_dir=root / "cache",
        results_dir=root / "results",
        figures_dir=root / "figures",
        graphs_dir=root / "graphs",
        llm=LLMSettings(
            base_url=url,
            model="fake",
            api_key="sk-none",
            timeout_s=30.0,
            max_retries=8,
            retry_backoff_s=0.05,
            retry_wait_max_s=retry_wait_max_s,
            concurrency=k,
        ),
    )


def cache_check(path: Path) -> tuple[int, int]:
    """(rows, rows whose text is not the endpoint's answer for their request)."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT request, text FROM responses").fetchall()
    bad = sum(answer_of(json.loads(request)) != text for request, text in rows)
    return len(rows), bad


def build_once(endpoint: SlowEndpoint, k: int, args: argparse.Namespace) -> dict[str, Any]:
    from ace_lab.graph.extract import read_records
    from ace_lab.graph.openie import EXTRACT_FILE, build_openie
    from tests.support.embedders import fake_vectors

    class HashEmbedder:
        model_id, dim = "test:hash", 16

        def encode(self, texts: list[str]) -> Any:
            return fake_vectors(texts, self.dim)

    chunks = synthetic_chunks(args.chunks)
    with tempfile.TemporaryDirectory(prefix="ace-remote-build-", dir=args.tmp) as tmp:
        llm = LLM(settings_for(Path(tmp), endpoint.url, k, args.retry_after * 2))
        start = time.perf_counter()
        build_openie(
            chunks,
            llm,
            Path(tmp) / "run",
            progress=False,
            embedder=HashEmbedder(),
            embed_cache=False,
        )
        wall = time.perf_counter() - start
        lines = (Path(tmp) / "run" / EXTRACT_FILE).read_text().splitlines()
        records = read_records(Path(tmp) / "run" / EXTRACT_FILE)
        rows, bad = cache_check(Path(tmp) / "cache" / "llm_cache.sqlite")
    ids = [json.loads(line)["chunk_id"] for line in lines if line]
    return {
        "wall": wall,
        "records": len(ids),
        "duplicates": len(ids) - len(set(ids)),
        "results": {cid: r.result for cid, r in records.items()},
        "cache_rows": rows,
        "bad_cache_rows": bad,
        "peak_client": llm.inflight.peak,
    }


def run_once(
    endpoint: SlowEndpoint, k: int, graph: Any, args: argparse.Namespace
) -> dict[str, Any]:
    from ace_lab.eval.studies.runner import run

    questions = bench_questions(args.questions)
    with tempfile.TemporaryDirectory(prefix="ace-remote-run-", dir=args.tmp) as tmp:
        settings = settings_for(Path(tmp), endpoint.url, k, args.retry_after * 2)
        llm = LLM(settings)
        start = time.perf_counter()
        frame = run(
            "naive",
            "toy",
            8,
            study="bench-remote",
            settings=settings,
            llm=llm,
            graph=graph,
            progress=False,
            questions=questions,
        )  # concurrency: the default for a remote endpoint, i.e. k
        wall = time.perf_counter() - start
        path = settings.results_dir / "bench-remote" / "naive.jsonl"
        lines = [json.loads(line) for line in path.read_text().splitlines() if line]
        rows, bad = cache_check(Path(tmp) / "cache" / "llm_cache.sqlite")
    ids = [rec["id"] for rec in lines]
    return {
        "wall": wall,
        "records": len(ids),
        "duplicates": len(ids) - len(set(ids)),
        "errors": frame.attrs.get("errors", 0),
        "results": {rec["id"]: rec["answer"] for rec in lines},
        "cache_rows": rows,
        "bad_cache_rows": bad,
        "peak_client": llm.inflight.peak,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="1 s latency (default 0.3 s)")
    parser.add_argument("--latency", type=float, default=None, help="seconds per request")
    parser.add_argument("--faults", type=float, default=0.05, help="share of 429 answers")
    parser.add_argument("--retry-after", type=float, default=0.2, help="Retry-After seconds")
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--levels", type=int, nargs="+", default=list(LEVELS))
    parser.add_argument("--max-requests", type=int, default=20_000)
    parser.add_argument("--lifetime", type=float, default=900.0, help="server stops after this")
    parser.add_argument(
        "--tmp",
        default="/dev/shm" if Path("/dev/shm").is_dir() else None,
        help="folder for the builds' and runs' files (default: tmpfs, so that another "
        "process's disk load does not enter the build's per-record fsync)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="also write the table as committed results: OUT.json, OUT.csv, OUT.md "
        "(e.g. results/bench/remote_concurrency)",
    )
    parser.add_argument("--note", default="", help="a note on the machine for OUT.json")
    args = parser.parse_args(argv)
    latency = args.latency if args.latency is not None else (1.0 if args.full else 0.3)
    run_info = record.Run(
        command=record.command_line(
            None if argv is None else ["bench/remote_concurrency.py", *argv]
        ),
        machine=record.machine_note(args.note),
    )

    logging.getLogger("ace_lab.llm.client").setLevel(logging.ERROR)  # the 429s are counted
    graph = toy_graph()
    rows: list[dict[str, Any]] = []
    failures: list[str] = []
    baseline: dict[str, Any] = {}
    with SlowEndpoint(
        latency, args.faults, args.retry_after, args.max_requests, lifetime_s=args.lifetime
    ) as endpoint:
        # Untimed warm-up: the first build and run in a process pay for lazy imports.
        warm = argparse.Namespace(**{**vars(args), "chunks": 8, "questions": 4})
        build_once(endpoint, 1, warm), run_once(endpoint, 1, graph, warm)
        for k in args.levels:
            for what, n, go in (
                ("build", args.chunks, lambda k=k: build_once(endpoint, k, args)),
                ("run", args.questions, lambda k=k: run_once(endpoint, k, graph, args)),
            ):
                endpoint.peak, before = 0, endpoint.rate_limited
                cpu = time.process_time()
                out = go()
                cpu = time.process_time() - cpu  # client and server threads: one process
                base = baseline.setdefault(what, out)
                checks = {
                    "records": out["records"] == n,
                    "no duplicates": out["duplicates"] == 0,
                    "same results as k=1": out["results"] == base["results"],
                    "one cache row per request": out["cache_rows"] == base["cache_rows"],
                    "no failure cached": out["bad_cache_rows"] == 0,
                    f"server saw <= {k} at once": endpoint.peak <= k,
                    "no errors": not out.get("errors"),
                }
                failures += [f"{what} k={k}: {name}" for name, ok in checks.items() if not ok]
                rows.append(
                    {
                        "what": what,
                        "n": n,
                        "k": k,
                        "wall": out["wall"],
                        "speedup": base["wall"] / out["wall"],
                        "ideal": n / math.ceil(n / k),
                        "floor": math.ceil(n / k) * latency,
                        "cpu": cpu,
                        "peak": endpoint.peak,
                        "429": endpoint.rate_limited - before,
                        "records": out["records"],
                        "cache": out["cache_rows"],
                    }
                )
                print(f"  {what:5} k={k:<3} {out['wall']:7.2f} s  peak {endpoint.peak}", flush=True)

    settings = {"latency_s": latency, **{k: v for k, v in vars(args).items() if k != "out"}}
    header, table, checks = report_parts(rows, settings, failures)
    run_info.finish()
    print(f"\n{header}\n")
    print("\n".join(table))
    print(
        f"load average (1 min): {run_info.load_start[0]:.1f} at the start, "
        f"{run_info.load_end[0]:.1f} at the end"
    )
    print(f"\n{checks}")
    if args.out:
        text = "\n".join([header, "", *table, "", checks])
        record.write(args.out, rows, text, [run_info], settings=settings, failures=failures)
        print(f"wrote {args.out}.json, .csv, .md")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
