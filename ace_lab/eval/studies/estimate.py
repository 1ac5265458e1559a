"""What a study will cost before it runs: calls, tokens and wall time per method.

``ace-lab run --estimate`` (or :func:`estimate_study`) multiplies the questions still to answer
by each method's mean recorded cost per question — LLM calls, input and output tokens, from
every committed study that ran the method (the same data set's studies first) — and turns them
into hours with the speed of the endpoint in use (:mod:`ace_lab.eval.studies.throughput`: its
recorded calls, one probe call, the serving table or the assumed defaults, named in the table),
divided by the requests in flight. Cache hits make a real run cheaper, never dearer: the
estimate is an upper bound for a cold cache. A composition never run is priced as the sum of
its parts, a variant never run from its head (both labelled so); a method with neither has no
recorded cost and is reported as such; a name the registry does not know is an error.

``ace-lab build --estimate`` (:func:`estimate_build`) does the same for a graph build: the
slice's chunks without a finished extraction record times the family's recorded calls and
tokens per chunk (the per-chunk records of every committed build of the family, the same data
set's first), plus the stages over the whole corpus (descriptions, summaries, reports, the typed
schema) at their recorded cost per chunk, counted for the whole slice because they rerun;
a finished build (every chunk extracted, its tables written) costs nothing more.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ace_lab.config import Settings, load_settings
from ace_lab.data import load_slice
from ace_lab.eval.reporting.export import to_markdown
from ace_lab.eval.studies.runner import evidence_study, select_questions
from ace_lab.eval.studies.study import read_jsonl, results_path, safe_name
from ace_lab.eval.studies.throughput import (
    ASSUMED_GEN_TPS,
    ASSUMED_PROMPT_TPS,
    Throughput,
    in_flight,
    throughput,
)
from ace_lab.graph.build import model_label, run_dir, settings_model, slice_chunks
from ace_lab.graph.build_log import EXTRACTION_RECORDS
from ace_lab.graph.extract import read_records
from ace_lab.llm import LLM


def check_methods(methods: list[str]) -> None:
    """A ValueError (one line) for the first name the method registry does not know."""
    from ace_lab.registry import spec

    for method in methods:
        try:
            spec(method)
        except (KeyError, ValueError) as exc:
            reason = str(exc.args[0] if exc.args else exc).split("; known:")[0]
            raise ValueError(f"{reason} (every method: ace-lab methods)") from None


def recorded_cost(
    method: str, dataset: str, settings: Settings, evidence: bool = False
) -> dict[str, float] | None:
    """Mean calls and tokens per question over every study that ran ``method``, answered or,
    with ``evidence``, evidence-only (stopped before the answer call). An evidence-only
    estimate with no evidence-only record of the method is priced from answered records and
    labelled an upper bound (they include the answer call)."""
    files = sorted(Path(settings.results_dir).glob(f"*/{safe_name(method)}.jsonl"))
    files.sort(key=lambda p: not p.parent.name.startswith(dataset))  # same data set first
    for path in files:
        records = [
            r
            for r in read_jsonl(path)
            if r.get("method") == method and bool(r.get("evidence_only")) == evidence
        ]
        if records:
            frame = pd.DataFrame(records)
            return {
                "calls": float(frame["llm_calls"].mean()),
                "input": float(frame["input_tokens"].mean()),
                "output": float(frame["output_tokens"].mean()),
                "from": path.parent.name,
            }
    if evidence:
        answered = recorded_cost(method, dataset, settings)
        if answered is not None:
            return answered | {"from": f"{answered['from']} (answered: an upper bound)"}
    return None


def composed_cost(
    method: str, dataset: str, settings: Settings, evidence: bool = False
) -> dict[str, float] | None:
    """A composition never run before (``mosaic>ace-full``) priced as the sum of its parts'
    recorded costs per question — an upper bound: the composed method runs the source's
    retrieval and the ACE part's planning and answer, not the source's own answer call.
    None when it is not a composition or a part has no recorded run."""
    from ace_lab.methods.names import MethodName, parse
    from ace_lab.registry.compose import is_composition

    parts = parse(method)
    if not is_composition(parts):
        return None
    source = str(MethodName(parts.head, parts.variant, parts.family))
    costs = [recorded_cost(name, dataset, settings, evidence) for name in (source, parts.policy)]
    if any(c is None for c in costs):
        return None
    total = {k: sum(float(c[k]) for c in costs if c) for k in ("calls", "input", "output")}
    names = " + ".join(
        f"{name} ({c['from']})" for name, c in zip((source, parts.policy), costs, strict=True) if c
    )
    return {**total, "from": f"sum of parts, an upper bound: {names}"}


def base_cost(
    method: str, dataset: str, settings: Settings, evidence: bool = False
) -> dict[str, float] | None:
    """A variant or graph family never run (``ace-full:b1500``, ``direct-cypher@openie-bare``)
    priced from the closest recorded name — without the variant, then without the family, then
    the head alone — labelled an approximation: a variant changes what the head spends (a
    smaller budget, a grammar). None for a bare head or a composition."""
    from ace_lab.methods.names import MethodName, parse

    parts = parse(method)
    if parts.policy:
        return None
    closest = (
        MethodName(parts.head, "", parts.family),
        MethodName(parts.head, parts.variant, ""),
        MethodName(parts.head),
    )
    for base in dict.fromkeys(str(name) for name in closest if str(name) != method):
        cost = recorded_cost(base, dataset, settings, evidence)
        if cost is not None:
            return {**cost, "from": f"{base} ({cost['from']}), an approximation of {method}"}
    return None


def estimate_study(
    methods: list[str],
    dataset: str,
    n: int,
    *,
    seed: int = 0,
    study: str | None = None,
    limit: int | None = None,
    stratified: int | None = None,
    concurrency: int | None = None,
    settings: Settings | None = None,
    allow_probe: bool = True,
    llm: LLM | None = None,
    evidence: bool = False,
) -> pd.DataFrame:
    """One row per method: questions to answer, calls, tokens and hours (cold cache).

    ``concurrency`` is the run's questions in flight (default: ``llm.concurrency`` for a remote
    endpoint); ``allow_probe`` and ``llm`` go to :func:`~.throughput.throughput`. ``evidence``:
    an evidence-only run (``ace-lab run --evidence-only``), priced from evidence-only records
    and counting the questions its evidence study has yet to answer.
    """
    check_methods(methods)
    settings = settings or load_settings()
    sl = load_slice(dataset, n, seed=seed, data_dir=settings.data_dir)
    questions = select_questions(sl.questions, limit, stratified, seed)
    base = evidence_study(sl.slice_id) if evidence else sl.slice_id
    rows, work = [], []
    for method in methods:
        done = {r["id"] for r in read_jsonl(results_path(study or base, method, settings))}
        todo = sum(q.id not in done for q in questions)
        cost = (
            recorded_cost(method, dataset, settings, evidence)
            or composed_cost(method, dataset, settings, evidence)
            or base_cost(method, dataset, settings, evidence)
        )
        row: dict[str, object] = {"method": method, "questions to answer": todo}
        if cost is None:
            rows.append(row | {"cost from": "no recorded run of this method"})
            continue
        rows.append(row | {"cost from": cost["from"]})
        work.append((todo * cost["calls"], todo * cost["input"], todo * cost["output"]))
    flight = in_flight(settings, concurrency)
    return priced(rows, work, settings, flight, allow_probe, llm)


def _cost_row(
    calls: float, tokens_in: float, tokens_out: float, speed: Throughput, flight: int
) -> dict:
    seconds = speed.seconds(calls, tokens_in, tokens_out) / flight
    return {
        "LLM calls": round(calls),
        "input tokens": round(tokens_in),
        "output tokens": round(tokens_out),
        "hours": round(seconds / 3600, 2),
    }


#: The per-chunk records a build appends as it goes (``run_per_chunk``): extraction, and the
#: typed family's reflection. The extraction records say which chunks are finished.
CHUNK_STAGES = (EXTRACTION_RECORDS, "*_reflect.jsonl")


def _corpus_stages(cost: object) -> list[dict]:
    """A build's recorded stages over the whole corpus that made every call cold (a rebuild
    that hit the cache records fewer tokens than a cold build spends)."""
    if isinstance(cost, dict):
        entries = [cost] if "stage" in cost else list(cost.values())
    else:
        entries = list(cost or [])
    return [
        e
        for e in entries
        if isinstance(e, dict)
        and "chunks" not in e
        and "prompt_tokens" in e
        and e.get("model_calls", e.get("llm_calls")) == e.get("llm_calls")
    ]


def recorded_build_cost(family: str, dataset: str, settings: Settings) -> dict | None:
    """LLM calls, input and output tokens per chunk of the committed builds of ``family``
    (pooled over the same data set's builds, or over all when it has none): per-chunk stages
    from their records, corpus-wide stages from ``tables/meta.json``."""
    builds = sorted(Path(settings.graphs_dir).glob(f"*/{family}/*/tables/meta.json"))
    same = [m for m in builds if m.parts[-5].startswith(f"{dataset}-")]
    pooled = dict.fromkeys(("chunk_calls", "chunk_in", "chunk_out", "chunks"), 0.0)
    pooled |= dict.fromkeys(("corpus_calls", "corpus_in", "corpus_out", "corpus_chunks"), 0.0)
    sources = []
    for meta_path in same or builds:
        folder = meta_path.parent.parent
        extract = [read_records(p) for p in folder.glob(CHUNK_STAGES[0])]
        if not any(extract):  # no finished extraction, no per-chunk cost
            continue
        later = [read_records(p) for pattern in CHUNK_STAGES[1:] for p in folder.glob(pattern)]
        sources.append(meta_path.parts[-5])
        pooled["chunks"] += sum(map(len, extract))
        for record in (r for records in extract + later for r in records.values()):
            pooled["chunk_calls"] += record.llm_calls
            pooled["chunk_in"] += record.prompt_tokens
            pooled["chunk_out"] += record.completion_tokens
        try:
            meta = json.loads(meta_path.read_text())
        except ValueError as exc:
            raise ValueError(f"{meta_path} is not valid JSON: {exc}") from exc
        corpus_stages = _corpus_stages(meta.get("cost"))
        if corpus_stages and meta.get("chunks"):
            pooled["corpus_chunks"] += meta["chunks"]
            pooled["corpus_calls"] += sum(e.get("llm_calls", 0) for e in corpus_stages)
            pooled["corpus_in"] += sum(e["prompt_tokens"] for e in corpus_stages)
            pooled["corpus_out"] += sum(e["completion_tokens"] for e in corpus_stages)
    if not sources:
        return None
    corpus = max(pooled["corpus_chunks"], 1)
    per_chunk = {k: pooled[k] / pooled["chunks"] for k in ("chunk_calls", "chunk_in", "chunk_out")}
    per_corpus = {k: pooled[k] / corpus for k in ("corpus_calls", "corpus_in", "corpus_out")}
    return per_chunk | per_corpus | {"from": ", ".join(sources)}


def estimate_build(
    families: list[str],
    dataset: str,
    n: int,
    *,
    seed: int = 0,
    settings: Settings | None = None,
    allow_probe: bool = True,
    llm: LLM | None = None,
) -> pd.DataFrame:
    """One row per graph family: chunks still to extract, calls, tokens and hours (cold
    cache; extraction keeps ``llm.concurrency`` requests in flight to a remote endpoint)."""
    settings = settings or load_settings()
    sl, chunks = slice_chunks(dataset, n, seed)
    model = model_label(settings_model(settings))
    rows, work = [], []
    for family in families:
        folder = run_dir(settings, sl.slice_id, family, model)
        done = {cid for p in folder.glob(CHUNK_STAGES[0]) for cid in read_records(p)}
        todo = sum(c.id not in done for c in chunks)
        cost = recorded_build_cost(family, dataset, settings)
        row: dict[str, object] = {"family": family, "chunks": len(chunks)}
        row["chunks to extract"] = todo
        if todo == 0 and (folder / "tables" / "meta.json").is_file():
            rows.append(row | {"cost from": "finished build"})
            work.append((0.0, 0.0, 0.0))
            continue
        if cost is None:
            rows.append(row | {"cost from": "no recorded build of this family"})
            continue
        rows.append(row | {"cost from": cost["from"]})
        work.append(
            tuple(todo * cost[f"chunk_{k}"] + len(chunks) * cost[f"corpus_{k}"] for k in KINDS)
        )
    return priced(rows, work, settings, in_flight(settings), allow_probe, llm, BUILD_TAGS)


#: The ledger tags of a graph build's calls: a build is priced with the speed of those calls
#: where the ledger has enough (their long generations fix the generation rate).
BUILD_TAGS = ("build.", "graph.")
#: The three quantities a cost counts: LLM calls, input tokens, output tokens.
KINDS = ("calls", "in", "out")
#: The speed shown when nothing is left to run (no endpoint is asked, nothing probed).
NOTHING_LEFT = "nothing left to run"


def priced(
    rows: list[dict],
    work: list[tuple[float, ...]],
    settings: Settings,
    flight: int,
    allow_probe: bool,
    llm: LLM | None,
    tags: tuple[str, ...] = (),
) -> pd.DataFrame:
    """``rows`` with calls, tokens and hours for those with a recorded cost (``work``, in
    order); the endpoint's speed is looked up (perhaps probed) only when there is work."""
    if any(any(w) for w in work):
        speed = throughput(settings, allow_probe=allow_probe, llm=llm, tags=tags)
    else:
        speed = Throughput(ASSUMED_PROMPT_TPS, ASSUMED_GEN_TPS, NOTHING_LEFT)
    costs = iter(work)
    for row in rows:
        if not str(row["cost from"]).startswith("no recorded"):
            row.update(_cost_row(*next(costs), speed, flight))
    frame = pd.DataFrame(rows)
    frame["speed from"] = speed.source.split(";")[0].split(" (")[0]
    frame.attrs["throughput"] = speed
    frame.attrs["in_flight"] = flight
    return frame


def estimate_text(table: pd.DataFrame) -> str:
    """An estimate as the CLI prints it: the table, the speed it assumed and its source."""
    speed, flight = table.attrs["throughput"], table.attrs["in_flight"]
    line = speed.source if speed.source == NOTHING_LEFT else speed.line()
    return (
        f"{to_markdown(table)}\nspeed: {line}\n{flight} request(s) in flight; cold cache "
        "(hits make it cheaper); nothing was run"
    )
