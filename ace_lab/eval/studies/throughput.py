"""How fast the endpoint in use answers, for estimates: seconds per call and per token.

:func:`throughput` takes the first of these that exists, and names it in ``source``:

0. **ledger** — this machine's ledger of model calls (:mod:`ace_lab.llm.ledger_file`) for the
   configured endpoint identity: with :data:`MIN_FIT_CALLS` or more *solo* calls (sent while
   none of the client's other requests was in flight, so their seconds are their own: a call
   queued behind another on the one-slot server records both), ``seconds ≈ a + b·prompt +
   c·completion`` fitted as in (1) on each call's service time (the send alone, no retry wait,
   no queueing at the client's gate). On the one-slot local server a call sent beside others
   is served once the call before it ends, so its own seconds are the time between the two
   completions (:func:`back_to_back`): a build, which keeps two extraction calls in flight,
   teaches the fit that way. Other calls sent beside others are left out and counted.
1. **measured** — the calls of the configured endpoint identity (the model identity the LLM
   client keys its cache on) recorded in the response cache, each with its prompt and completion
   tokens and model latency. With :data:`MIN_FIT_CALLS` or more, ``seconds ≈ a + b·prompt +
   c·completion`` fitted by least squares with non-negative coefficients; with fewer, the
   assumed rates scaled by one least-squares factor.
2. **probe** — one short call to the endpoint (a remote one, or a local server already running
   with the settings in use: an estimate never starts a server), timed like (1); its tokens
   are reported as its cost and, cached, it is a measured call for the next estimate.
3. **serving table** — for the local server, the row of ``results/serving/**/llm_serving.json``
   (``bench/llm_serving.py``) measured with the options in use.
4. **assumed** — the design defaults of 70 prompt and 13 generated tokens/s.

Wall time is divided by :func:`in_flight`: the requests the run keeps in flight (the local
one-slot server answers one at a time).
"""

from __future__ import annotations

import itertools
import json
import math
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from ace_lab.config import Settings, load_settings
from ace_lab.llm import LLM
from ace_lab.llm.endpoint import describe
from ace_lab.llm.ledger_file import LedgerEntry, ledger_path, read_ledger
from ace_lab.llm.serving import resolve

#: Design defaults (DESIGN.md) used when the server in use has no measured row.
ASSUMED_PROMPT_TPS, ASSUMED_GEN_TPS = 70.0, 13.0
SERVING_FILE = "llm_serving.json"
SERVING_RESULTS = Path("serving") / SERVING_FILE  # and any folder below results/serving/
#: The response cache the LLM client writes (``ace_lab.llm.client``), under ``cache_dir``.
CACHE_FILE = "llm_cache.sqlite"
#: Recorded calls needed to fit a fixed cost per call and one rate per token kind.
MIN_FIT_CALLS = 8
#: The probe: tokens it may generate, seconds it may take (no retries: an estimate is quick).
PROBE_TOKENS, PROBE_TIMEOUT_S = 32, 20.0
PROBE_TAG = "estimate.probe"


@dataclass(frozen=True)
class Throughput:
    """``seconds = calls·call_s + prompt/prompt_tps + generated/gen_tps`` (one call at a time)."""

    prompt_tps: float
    gen_tps: float
    source: str
    call_s: float = 0.0

    def seconds(self, calls: float, tokens_in: float, tokens_out: float) -> float:
        return calls * self.call_s + tokens_in / self.prompt_tps + tokens_out / self.gen_tps

    def line(self) -> str:
        """The speed in one line, as the estimate prints it."""
        per_call = f"{self.call_s:.3g} s per call + " if self.call_s else ""
        return (
            f"{per_call}{self.prompt_tps:.4g} prompt / {self.gen_tps:.4g} generated tokens/s, "
            f"{self.source}"
        )


def endpoint_identity(settings: Settings) -> str:
    """The model identity the LLM client would key its cache on (nothing is started)."""
    return LLM(settings.with_llm(cache=False)).model_identity


def in_flight(settings: Settings, requested: int | None = None) -> int:
    """Requests in flight during a run: 1 for the local one-slot server (it queues the rest);
    for a remote endpoint ``llm.concurrency``, or a run's ``--concurrency`` when lower (the
    client never sends more than ``llm.concurrency`` at once, however many questions run)."""
    if settings.llm.is_local:
        return 1
    limit = settings.llm.concurrency
    return max(1, min(requested, limit) if requested is not None else limit)


# ------------------------------------------------------------------------------ measured
def recorded_calls(settings: Settings, identity: str) -> list[tuple[int, int, float]]:
    """(prompt tokens, completion tokens, latency s) of every cached response of ``identity``
    whose latency was recorded (read-only; a cache from before latencies has none)."""
    path = Path(settings.cache_dir) / CACHE_FILE
    if not path.is_file():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
    try:
        rows = conn.execute(
            "SELECT r.prompt_tokens, r.completion_tokens, l.latency_s FROM responses r "
            "JOIN latencies l ON l.key = r.key WHERE r.model = ? AND l.latency_s > 0",
            (identity,),
        ).fetchall()
    except sqlite3.OperationalError:  # no latencies table yet
        return []
    finally:
        conn.close()
    return [(int(p), int(c), float(s)) for p, c, s in rows]


def _rate(seconds_per_token: float) -> float:
    return 1 / seconds_per_token if seconds_per_token > 0 else math.inf


def fit_latency(calls: list[tuple[int, int, float]], source: str) -> Throughput | None:
    """The speed that best explains ``calls`` (see the module docstring), or None."""
    if not calls:
        return None
    data = np.array(calls, dtype=float)
    tokens, seconds = data[:, :2], data[:, 2]
    if len(calls) >= MIN_FIT_CALLS:
        design = np.column_stack([np.ones(len(calls)), tokens])
        best: tuple[float, np.ndarray] | None = None
        # Non-negative least squares over three terms: the best fit of each subset of them.
        for size in (1, 2, 3):
            for cols in itertools.combinations(range(3), size):
                coef = np.zeros(3)
                coef[list(cols)] = np.linalg.lstsq(design[:, cols], seconds, rcond=None)[0]
                if (coef < 0).any():
                    continue
                residual = float(((design @ coef - seconds) ** 2).sum())
                if best is None or residual < best[0] - 1e-12:
                    best = (residual, coef)
        if best is not None and best[1].any():
            call_s, prompt_s, gen_s = best[1]
            return Throughput(_rate(prompt_s), _rate(gen_s), source, float(call_s))
    # Too few calls for three terms: the assumed rates, scaled to fit them.
    assumed = tokens[:, 0] / ASSUMED_PROMPT_TPS + tokens[:, 1] / ASSUMED_GEN_TPS
    if not (assumed > 0).any():
        return None
    factor = float((assumed * seconds).sum() / (assumed * assumed).sum())
    if factor <= 0:
        return None
    return Throughput(ASSUMED_PROMPT_TPS / factor, ASSUMED_GEN_TPS / factor, source)


# -------------------------------------------------------------------------------- ledger
def back_to_back(entries: list[LedgerEntry]) -> list[tuple[int, int, float] | None]:
    """Per entry (in completion order) of a one-slot server: (prompt tokens, completion
    tokens, service s) where its seconds are known, else None. A solo call's are its own; a
    call sent while another was in flight and still waiting when that one ended was served
    from that end to its own, the difference of the two completion times (whole seconds in
    the ledger, so each is off by up to a second, which a fit over many calls averages out)."""
    found: list[tuple[int, int, float] | None] = []
    previous_end: float | None = None
    for entry in entries:
        end = _timestamp(entry.time)
        tokens = (entry.prompt_tokens, entry.completion_tokens)
        if entry.latency_s <= 0:
            found.append(None)
        elif entry.in_flight <= 1:
            found.append((*tokens, entry.latency_s))
        elif end is None or previous_end is None:
            found.append(None)
        else:
            waited = end - entry.latency_s <= previous_end <= end
            service = end - previous_end if waited else 0.0
            found.append((*tokens, service) if 0 < service <= entry.latency_s + 1 else None)
        previous_end = end
    return found


def _timestamp(text: str) -> float | None:
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


def ledger_calls(
    settings: Settings, identity: str, tags: tuple[str, ...] = ()
) -> tuple[list[tuple[int, int, float]], int]:
    """(prompt tokens, completion tokens, service s) of the ledger's calls of ``identity``
    whose service seconds are known (module docstring; only those whose tag starts with one of
    ``tags``, when given), and how many of its calls were left out as sent beside others."""
    entries = read_ledger(ledger_path(settings.cache_dir), identity)
    one_slot = settings.llm.is_local and settings.llm.parallel == 1
    if one_slot:
        known = back_to_back(entries)
    else:
        known = [
            (e.prompt_tokens, e.completion_tokens, e.latency_s)
            if e.in_flight <= 1 and e.latency_s > 0
            else None
            for e in entries
        ]
    chosen = [k for e, k in zip(entries, known, strict=True) if not tags or e.tag.startswith(tags)]
    usable = [k for k in chosen if k is not None]
    return usable, len(chosen) - len(usable)


def ledger_throughput(
    settings: Settings, identity: str, tags: tuple[str, ...] = ()
) -> Throughput | None:
    """The speed fitted on the ledger's calls of ``identity`` whose service seconds are known
    (:func:`ledger_calls`): those of the work's own
    stages (tags starting with one of ``tags``) when there are enough, else all of them (a mix
    of short replies leaves the generation rate poorly determined for long ones); None with
    too few calls."""
    for wanted in (tags, ()) if tags else ((),):
        solo, shared = ledger_calls(settings, identity, wanted)
        if len(solo) >= MIN_FIT_CALLS:
            left_out = f"; {shared} sent beside others left out" if shared else ""
            stages = f" ({', '.join(f'{tag}*' for tag in wanted)})" if wanted else ""
            source = f"ledger: fitted on {len(solo)} calls{stages} of {identity}{left_out}"
            return fit_latency(solo, source)
    return None


# --------------------------------------------------------------------------------- probe
def _probe_llm(settings: Settings, identity: str) -> LLM | None:
    """A client for one probe: the remote endpoint, or a local server already running with
    the settings in use (None when there is neither: an estimate starts no server)."""
    quick = settings.with_llm(max_retries=0, timeout_s=PROBE_TIMEOUT_S)
    if not settings.llm.is_local:
        return LLM(quick)
    from ace_lab.llm import server
    from ace_lab.llm.endpoint import openai_client
    from ace_lab.llm.models import get_tier
    from ace_lab.llm.serving import HOST

    live = server.status(settings)
    options = resolve(settings.llm.serving, settings.model_dir).as_dict()
    want = (get_tier(settings.llm.tier).sha256, options, settings.llm.threads)
    if live is None or (live.sha256, live.serving, live.threads) != want:
        return None
    client = openai_client(f"http://{HOST}:{live.port}/v1", "local", PROBE_TIMEOUT_S)
    return LLM(quick, client=client, model_identity=identity)


def probe(llm: LLM) -> Throughput:
    """One short call through ``llm``, timed (a cached answer without a latency is asked
    again uncached); its tokens and seconds are named in ``source``."""
    from ace_lab.prompts import load_prompt

    messages = load_prompt("ping").messages()
    done = llm.chat(messages, tag=PROBE_TAG, max_tokens=PROBE_TOKENS)
    if done.cache_hit:
        done = llm.chat(messages, tag=PROBE_TAG, max_tokens=PROBE_TOKENS, use_cache=False)
    cost = (
        f"probe: 1 call of {llm.model_identity} cost {done.prompt_tokens} prompt + "
        f"{done.completion_tokens} generated tokens, {done.latency_s:.2f} s"
    )
    call = (done.prompt_tokens, done.completion_tokens, max(done.latency_s, 1e-6))
    speed = fit_latency([call], cost)
    return speed or Throughput(ASSUMED_PROMPT_TPS, ASSUMED_GEN_TPS, f"assumed ({cost})")


# ------------------------------------------------------------------------- serving table
def _idle_speed_fields(options: dict[str, object]) -> dict[str, object]:
    """The options that set an idle server's speed (polling, priority, nice act under load)."""
    return {k: v for k, v in options.items() if k not in ("poll", "priority", "nice")}


def serving_table(settings: Settings) -> Throughput | None:
    """The serving table's row for the local server ``settings`` would start, or None."""
    options = _idle_speed_fields(resolve(settings.llm.serving, settings.model_dir).as_dict())
    best: tuple[int, Throughput] | None = None
    for path in sorted((Path(settings.results_dir) / SERVING_RESULTS.parent).rglob(SERVING_FILE)):
        try:
            rows = json.loads(path.read_text())
        except ValueError as exc:
            raise ValueError(f"{path} is not valid JSON: {exc}") from exc
        for row in rows:  # the matching row measured on the most calls wins
            measured = _idle_speed_fields(row.get("options") or {})
            if measured == options and row.get("threads") == settings.llm.threads:
                where = path.relative_to(settings.results_dir)
                found = Throughput(
                    row["prompt tok/s"], row["gen tok/s"], f"serving table (measured, {where})"
                )
                if best is None or row["calls"] > best[0]:
                    best = (row["calls"], found)
    return best[1] if best is not None else None


def throughput(
    settings: Settings | None = None,
    *,
    allow_probe: bool = True,
    llm: LLM | None = None,
    tags: tuple[str, ...] = (),
) -> Throughput:
    """The speed of the endpoint ``settings`` configure (module docstring: which source).

    ``llm`` is the client a probe goes through (tests pass a scripted one); ``allow_probe=False``
    never calls the endpoint.
    """
    settings = settings or load_settings()
    identity = llm.model_identity if llm is not None else endpoint_identity(settings)
    if (learned := ledger_throughput(settings, identity, tags)) is not None:
        return learned
    calls = recorded_calls(settings, identity)
    plural = "" if len(calls) == 1 else "s"
    measured = fit_latency(calls, f"measured on {len(calls)} call{plural} of {identity}")
    if measured is not None:
        return measured
    why = f"no recorded call of {identity}"
    if allow_probe:
        client = llm or _probe_llm(settings, identity)
        if client is None:
            why += "; no local server running to probe"
        else:
            try:
                return probe(client)
            except Exception as exc:  # an offline machine: say so, and fall back
                why += f"; probe failed: {describe(exc, 160)}"
    if settings.llm.is_local and (table := serving_table(settings)) is not None:
        return Throughput(table.prompt_tps, table.gen_tps, f"{table.source}; {why}")
    return Throughput(ASSUMED_PROMPT_TPS, ASSUMED_GEN_TPS, f"assumed (not measured; {why})")
