"""What a study will cost before it runs: calls, tokens and wall time per method.

``ace-lab run --estimate`` (or :func:`estimate_study`) multiplies the questions still to answer
by each method's mean recorded cost per question — LLM calls, input and output tokens, from
every committed study that ran the method (the same data set's studies first) — and turns the
tokens into hours with the measured throughput of the server the run would use
(``results/serving/**/llm_serving.json``, written by ``bench/llm_serving.py``; where the options in
use were not measured, the design defaults of 70 prompt and 13 generated tokens/s, marked
"assumed"). Cache hits make a real run cheaper, never dearer: the estimate is an upper bound
for a cold cache. A method never run before has no recorded cost and is reported as such.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ace_lab.config import Settings, load_settings
from ace_lab.data import load_dataset, make_slice
from ace_lab.eval.runner import select_questions
from ace_lab.eval.study import read_jsonl, results_path, safe_name
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
    sl = make_slice(load_dataset(dataset, settings.data_dir), n, seed=seed)
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
        seconds = todo * (cost["input"] / speed.prompt_tps + cost["output"] / speed.gen_tps)
        rows.append(row | {
            "LLM calls": round(todo * cost["calls"]),
            "input tokens": round(todo * cost["input"]),
            "output tokens": round(todo * cost["output"]),
            "hours": round(seconds / 3600, 2),
            "cost from": cost["from"],
        })  # fmt: skip
    frame = pd.DataFrame(rows)
    frame.attrs["throughput"] = speed
    return frame
