"""What a study will cost before it runs: calls, tokens and wall time per method.

``ace-lab run --estimate`` (or :func:`estimate_study`) multiplies the questions still to answer
by each method's mean recorded cost per question — LLM calls, input and output tokens, from
every committed study that ran the method (the same data set's studies first) — and turns the
tokens into hours with the measured throughput of the server the run would use
(``results/serving/**/llm_serving.json``, written by ``bench/llm_serving.py``; where the options in
use were not measured, the design defaults of 70 prompt and 13 generated tokens/s, marked
"assumed"). Cache hits make a real run cheaper, never dearer: the estimate is an upper bound
for a cold cache. A method never run before has no recorded cost and is reported as such.

``ace-lab build --estimate`` (:func:`estimate_build`) does the same for a graph build: the
slice's chunks without a finished extraction record times the family's recorded tokens per
chunk (the per-chunk records of every committed build of the family, the same data set's
first), plus the stages over the whole corpus (descriptions, summaries, reports, the typed
schema) at their recorded tokens per chunk, counted for the whole slice because they rerun;
a finished build (every chunk extracted, its tables written) costs nothing more.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ace_lab.config import Settings, load_settings
from ace_lab.data import load_slice
from ace_lab.eval.reporting.export import to_markdown
from ace_lab.eval.studies.runner import select_questions
from ace_lab.eval.studies.study import read_jsonl, results_path, safe_name
from ace_lab.graph.build import model_label, run_dir, settings_model, slice_chunks
from ace_lab.graph.extract import read_records
from ace_lab.llm.serving import resolve

#: Design defaults (DESIGN.md) used when the server in use has no measured row.
ASSUMED_PROMPT_TPS, ASSUMED_GEN_TPS = 70.0, 13.0
SERVING_FILE = "llm_serving.json"
SERVING_RESULTS = Path("serving") / SERVING_FILE  # and any folder below results/serving/


@dataclass(frozen=True)
class Throughput:
    prompt_tps: float
    gen_tps: float
    source: str


def _idle_speed_fields(options: dict[str, object]) -> dict[str, object]:
    """The options that set an idle server's speed (polling, priority, nice act under load)."""
    return {k: v for k, v in options.items() if k not in ("poll", "priority", "nice")}


def throughput(settings: Settings | None = None) -> Throughput:
    """Measured tokens/s of the server ``settings`` would start (or the assumed defaults)."""
    settings = settings or load_settings()
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
                found = Throughput(row["prompt tok/s"], row["gen tok/s"], f"measured ({where})")
                if best is None or row["calls"] > best[0]:
                    best = (row["calls"], found)
    if best is not None:
        return best[1]
    return Throughput(ASSUMED_PROMPT_TPS, ASSUMED_GEN_TPS, "assumed (not measured)")


def recorded_cost(method: str, dataset: str, settings: Settings) -> dict[str, float] | None:
    """Mean calls and tokens per question over every study that ran ``method``."""
    files = sorted(Path(settings.results_dir).glob(f"*/{safe_name(method)}.jsonl"))
    files.sort(key=lambda p: not p.parent.name.startswith(dataset))  # same data set first
    for path in files:
        records = [r for r in read_jsonl(path) if r.get("method") == method]
        if records:
            frame = pd.DataFrame(records)
            return {
                "calls": float(frame["llm_calls"].mean()),
                "input": float(frame["input_tokens"].mean()),
                "output": float(frame["output_tokens"].mean()),
                "from": path.parent.name,
            }
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
    settings: Settings | None = None,
) -> pd.DataFrame:
    """One row per method: questions to answer, calls, tokens and hours (cold cache)."""
    settings = settings or load_settings()
    sl = load_slice(dataset, n, seed=seed, data_dir=settings.data_dir)
    questions = select_questions(sl.questions, limit, stratified, seed)
    speed = throughput(settings)
    rows = []
    for method in methods:
        done = {r["id"] for r in read_jsonl(results_path(study or sl.slice_id, method, settings))}
        todo = sum(q.id not in done for q in questions)
        cost = recorded_cost(method, dataset, settings)
        row: dict[str, object] = {"method": method, "questions to answer": todo}
        if cost is None:
            rows.append(row | {"cost from": "no recorded run of this method"})
            continue
        row["LLM calls"] = round(todo * cost["calls"])
        rows.append(row | _tokens_and_hours(todo * cost["input"], todo * cost["output"], speed))
        rows[-1]["cost from"] = cost["from"]
    return _estimate_frame(rows, speed)


def _tokens_and_hours(tokens_in: float, tokens_out: float, speed: Throughput) -> dict:
    seconds = tokens_in / speed.prompt_tps + tokens_out / speed.gen_tps
    return {
        "input tokens": round(tokens_in),
        "output tokens": round(tokens_out),
        "hours": round(seconds / 3600, 2),
    }


def _estimate_frame(rows: list[dict], speed: Throughput) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame.attrs["throughput"] = speed
    return frame


#: The per-chunk records a build appends as it goes (``run_per_chunk``): extraction, and the
#: typed family's reflection. The extraction records say which chunks are finished.
CHUNK_STAGES = ("*_extract.jsonl", "*_reflect.jsonl")


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
    """Input and output tokens per chunk of the committed builds of ``family`` (pooled over
    the same data set's builds, or over all when it has none): per-chunk stages from their
    records, corpus-wide stages from ``tables/meta.json``."""
    builds = sorted(Path(settings.graphs_dir).glob(f"*/{family}/*/tables/meta.json"))
    same = [m for m in builds if m.parts[-5].startswith(f"{dataset}-")]
    pooled = {"chunk_in": 0.0, "chunk_out": 0.0, "chunks": 0, "corpus_in": 0.0,
              "corpus_out": 0.0, "corpus_chunks": 0}  # fmt: skip
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
            pooled["chunk_in"] += record.prompt_tokens
            pooled["chunk_out"] += record.completion_tokens
        try:
            meta = json.loads(meta_path.read_text())
        except ValueError as exc:
            raise ValueError(f"{meta_path} is not valid JSON: {exc}") from exc
        corpus_stages = _corpus_stages(meta.get("cost"))
        if corpus_stages and meta.get("chunks"):
            pooled["corpus_chunks"] += meta["chunks"]
            pooled["corpus_in"] += sum(e["prompt_tokens"] for e in corpus_stages)
            pooled["corpus_out"] += sum(e["completion_tokens"] for e in corpus_stages)
    if not sources:
        return None
    corpus = max(pooled["corpus_chunks"], 1)
    return {
        "chunk_in": pooled["chunk_in"] / pooled["chunks"],
        "chunk_out": pooled["chunk_out"] / pooled["chunks"],
        "corpus_in": pooled["corpus_in"] / corpus,
        "corpus_out": pooled["corpus_out"] / corpus,
        "from": ", ".join(sources),
    }


def estimate_build(
    families: list[str], dataset: str, n: int, *, seed: int = 0, settings: Settings | None = None
) -> pd.DataFrame:
    """One row per graph family: chunks still to extract, tokens and hours (cold cache)."""
    settings = settings or load_settings()
    sl, chunks = slice_chunks(dataset, n, seed)
    model = model_label(settings_model(settings))
    speed = throughput(settings)
    rows = []
    for family in families:
        folder = run_dir(settings, sl.slice_id, family, model)
        done = {cid for p in folder.glob(CHUNK_STAGES[0]) for cid in read_records(p)}
        todo = sum(c.id not in done for c in chunks)
        cost = recorded_build_cost(family, dataset, settings)
        row: dict[str, object] = {"family": family, "chunks": len(chunks)}
        row["chunks to extract"] = todo
        if todo == 0 and (folder / "tables" / "meta.json").is_file():
            rows.append(row | _tokens_and_hours(0, 0, speed) | {"cost from": "finished build"})
            continue
        if cost is None:
            rows.append(row | {"cost from": "no recorded build of this family"})
            continue
        tokens_in = todo * cost["chunk_in"] + len(chunks) * cost["corpus_in"]
        tokens_out = todo * cost["chunk_out"] + len(chunks) * cost["corpus_out"]
        rows.append(row | _tokens_and_hours(tokens_in, tokens_out, speed))
        rows[-1]["cost from"] = cost["from"]
    return _estimate_frame(rows, speed)


def estimate_text(table: pd.DataFrame) -> str:
    """An estimate as the CLI prints it: the table and the throughput it assumed."""
    speed = table.attrs["throughput"]
    return (
        f"{to_markdown(table)}\nthroughput: {speed.prompt_tps:g} prompt / {speed.gen_tps:g} "
        f"generated tokens/s, {speed.source}; cold cache (hits make it cheaper); nothing was run"
    )
