"""Query-time overhead: how much of a query's time is not the LLM, per method; no LLM is called.

    .venv/bin/python bench/query_overhead.py [--study S] [--questions 20] [--no-live]

Part 1 reads a study's results (default: the newest study under results/) and prints, per
method, the mean wall time of a query, the mean LLM time, the rest (retrieval, merging,
adaptation, prompt building) and its share of the wall time. LLM time is the plain sum of
the latencies of calls that reached the model (cache hits count as non-LLM time, since they
cost no model time); calls made in parallel would overlap and make it exceed the wall time,
which ACE does not do (router, planner and generator run one after the other).

Part 2 measures live, without any LLM, the retrieval cost ACE adds to a HiRAG query on the
committed default graph (hotpotqa_dev_sample200, n=20), if it is present: each HiRAG mode
(``hi`` = ACE's base, ``hi_local`` = Depth, ``hi_global`` = Breadth) for the slice's
questions, then merge and adapt of the three (Full-ACE's context policy). The first question
is run once untimed so that loading the embedder and indexes is not counted. Query and
evidence vectors go through the on-disk embedding cache, so a first run includes encoding
them and a rerun shows the warm-cache cost.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import pandas as pd

from ace_lab.config import load_settings
from ace_lab.eval.reporting.export import to_markdown
from ace_lab.eval.studies.study import latest_study, load_results


def overhead_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per method: mean wall, LLM and non-LLM seconds per query, and the non-LLM share."""
    rows = []
    for method, sub in df.groupby("method", sort=False):
        wall, llm = float(sub["wall_s"].mean()), float(sub["llm_s"].mean())
        rows.append(
            {
                "method": method,
                "n": len(sub),
                "wall_s": wall,
                "llm_s": llm,
                "non_llm_s": wall - llm,
                "non_llm_share": (wall - llm) / wall if wall else float("nan"),
                "cache_hit_share": float(sub["cache_hits"].sum() / max(1, sub["llm_calls"].sum())),
            }
        )
    return pd.DataFrame(rows)


def step_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean non-LLM seconds of each step (elapsed minus its LLM latency), methods × steps."""
    rows = [
        {
            "method": rec.method,
            "step": step["name"],
            "non_llm_s": step["elapsed"] - step.get("llm_s", 0.0),
        }
        for rec in df.itertuples(index=False)
        for step in rec.steps
    ]
    if not rows:
        return pd.DataFrame()
    # Summed over all queries, then divided by the method's number of queries: a mean per
    # query that stays right when a step runs twice or not at all for some queries.
    totals = pd.DataFrame(rows).groupby(["method", "step"], sort=False)["non_llm_s"].sum()
    per_query = totals.div(df.groupby("method", sort=False).size(), level="method")
    return per_query.unstack().reset_index()


def _timed_ms(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


def live_table(dataset: str, n: int, questions: int) -> pd.DataFrame | None:
    """Per-query milliseconds of the three HiRAG modes and of ACE's merge + adapt (no LLM)."""
    from ace_lab.ace.adapt import adapt
    from ace_lab.ace.policy import full_policy
    from ace_lab.data import load_slice
    from ace_lab.evidence import merge, tag
    from ace_lab.methods.hirag import HiRetriever
    from ace_lab.retrieval import RetrievalGraph

    try:
        graph = RetrievalGraph.load(dataset, n)
        queries = [q.question for q in load_slice(dataset, n).questions]
    except (FileNotFoundError, ValueError) as exc:  # no graph or no data on this machine
        print(f"live part skipped: {exc}")
        return None
    retriever, policy = HiRetriever(graph), full_policy("qa")
    timings: dict[str, list[float]] = {}

    def one(query: str) -> dict[str, float]:
        ms: dict[str, float] = {}
        ms["hi (base)"], base = _timed_ms(lambda: retriever.retrieve(query, "hi"))
        ms["hi_local (depth)"], depth = _timed_ms(lambda: retriever.retrieve(query, "hi_local"))
        ms["hi_global (breadth)"], breadth = _timed_ms(
            lambda: retriever.retrieve(query, "hi_global")
        )
        increments = {"depth": tag(depth, "depth", 1), "breadth": tag(breadth, "breadth", 1)}
        ms["merge"], merged = _timed_ms(lambda: merge(tag(base, "base", 0), increments))
        ms["adapt"], _ = _timed_ms(
            lambda: adapt(merged, policy, [query, query, query], graph.embedder)
        )
        ms["ACE non-LLM total"] = sum(ms.values())
        return ms

    one(queries[0])  # warm-up: embedder, index and report vectors load lazily
    for query in queries[:questions]:
        for key, value in one(query).items():
            timings.setdefault(key, []).append(value)
    return pd.DataFrame(
        [
            {
                "stage": key,
                "n": len(values),
                "mean_ms": statistics.fmean(values),
                "median_ms": statistics.median(values),
                "max_ms": max(values),
            }
            for key, values in timings.items()
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", help="results/<study> (default: the newest)")
    parser.add_argument("--dataset", default="hotpotqa_dev_sample200", help="live part's graph")
    parser.add_argument("--n", type=int, default=20, help="live part's slice size")
    parser.add_argument("--questions", type=int, default=20, help="live part: questions timed")
    parser.add_argument("--no-live", action="store_true", help="skip the live retrieval timing")
    args = parser.parse_args()

    settings = load_settings()
    try:
        study = args.study or latest_study(settings)
        df = load_results(study, settings)
    except FileNotFoundError as exc:
        print(f"results part skipped: {exc}")
    else:
        print(f"## {study}: time per query (s)\n")
        print(to_markdown(overhead_table(df)))
        steps = step_table(df)
        if not steps.empty:
            print("\n## non-LLM seconds per step (mean per query)\n")
            print(to_markdown(steps))
    if not args.no_live:
        table = live_table(args.dataset, args.n, args.questions)
        if table is not None:
            print(f"\n## live, no LLM: {args.dataset} n={args.n} (ms per query)\n")
            print(to_markdown(table, floatfmt=".1f"))
            print(
                "(ACE runs depth and breadth in parallel; the total is their sequential sum. "
                "'hi' encodes the query and 'adapt' embeds evidence unless the on-disk "
                "embedding cache already holds them, so a second run shows warm-cache times.)"
            )


if __name__ == "__main__":
    main()
