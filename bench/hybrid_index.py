"""Query latency of HybridIndex: dense, sparse and hybrid search side by side.

    python bench/hybrid_index.py [--corpus .../corpus.json] [--queries 200] [--k 10]

Builds the index over a corpus of ``{id, title, text}`` records (passage text, as Chunk nodes
hold it; vectors come from the shared embedding cache, so only the first run embeds), then times
``search`` one query at a time for each mode over the dataset's questions. Query vectors are
warmed into the cache first, so the dense figures are search cost (cache lookup + matrix
product + fusion); the cost of encoding an unseen query with the embedder is printed apart.
Index build time is reported but excluded from the per-query figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from ace_lab.embed import embed, get_embedder
from ace_lab.index import HybridIndex

DATA = Path("/work/shared/data/2wikimultihopqa_hipporag1000")


def _timed_ms(fn: Callable[[str], object], items: Sequence[str]) -> list[float]:
    """Wall time of ``fn(item)`` for each item, in milliseconds."""
    out = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DATA / "corpus.json")
    parser.add_argument("--questions", type=Path, default=None, help="default: beside corpus")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--candidates", type=int, default=50)
    args = parser.parse_args()

    records = json.loads(args.corpus.read_text())
    questions_path = args.questions or args.corpus.with_name("questions.json")
    queries = [q["question"] for q in json.loads(questions_path.read_text())][: args.queries]

    embedder = get_embedder()
    t = time.perf_counter()
    index = HybridIndex.build([r["id"] for r in records], [r["text"] for r in records], embedder)
    build_s = time.perf_counter() - t
    embed(queries, embedder, progress=False)  # warm the query vectors into the cache

    rows = []
    for mode in ("dense", "sparse", "hybrid"):
        index.search(queries[0], k=args.k, mode=mode)  # first-call overheads out of the timing
        per_query = _timed_ms(
            lambda q, m=mode: index.search(q, k=args.k, mode=m, candidates=args.candidates),
            queries,
        )
        t = time.perf_counter()
        index.search_many(queries, k=args.k, mode=mode, candidates=args.candidates)
        batch_ms = (time.perf_counter() - t) * 1000 / len(queries)
        rows.append(
            {
                "mode": mode,
                "mean_ms": round(statistics.mean(per_query), 3),
                "p50_ms": round(statistics.median(per_query), 3),
                "p95_ms": round(sorted(per_query)[int(0.95 * (len(per_query) - 1))], 3),
                "search_many_ms": round(batch_ms, 3),
            }
        )
    encode_ms = statistics.median(_timed_ms(lambda q: embedder.encode([q]), queries[:50]))

    table = pd.DataFrame(rows).set_index("mode")
    print(
        f"{len(index)} passages, {len(queries)} queries, k={args.k}, "
        f"candidates={args.candidates}, build {build_s:.1f} s (from cache)"
    )
    print(table.to_string())
    ratio = table.loc["hybrid", "mean_ms"] / table.loc["dense", "mean_ms"]
    print(f"hybrid/dense (mean per query): {ratio:.2f}x")
    print(f"encoding one unseen query with {embedder.model_id}: {encode_ms:.1f} ms (median)")


if __name__ == "__main__":
    main()
