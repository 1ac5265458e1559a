"""How much harder plain retrieval gets when a slice's corpus is pooled: NaiveRAG's passage
recall on small slices and on the pooled corpus, the same questions paired.

    .venv/bin/python bench/pooled_retrieval.py
        [--sets hotpotqa_train_sample100_hipporag musique_train_sample100_hipporag]
        [--small 20] [--n 100] [--budgets 300 1500] [--out results/bench/pooled_retrieval]

A slice's corpus is its own questions' passages: a small slice (``--small`` questions) searches
a few hundred passages, the pooled view (``<set>_pooled``, :mod:`ace_lab.data.pooled`) every
passage of the set's sample. Both order questions the same way, so the small slice's questions
are the pooled slice's first ones and can be paired. For each, NaiveRAG's retrieval
(:class:`~ace_lab.methods.naive.NaiveRetriever`: the hybrid passage index, best first until
``--budget`` context tokens) runs over a graph of the slice's chunk nodes and their passage
index alone, which is all NaiveRAG reads of a built graph, so its contexts are the ones a full
build would give it, with no LLM call and no build. Per budget and slice: questions, passages
searched, passage recall and answer coverage with 95 % intervals; per budget and set, the
paired difference pooled minus small on the shared questions. Needs the full sets
(``../shared/data`` or ``ace-lab data fetch``); the embeddings are cached, so a rerun is quick.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: bench.record and ace_lab from the checkout
    sys.path.insert(0, str(ROOT))

from ace_lab.data import Chunk, Question, chunk_passages, load_slice  # noqa: E402
from ace_lab.eval.metrics.answers import passage_recall  # noqa: E402
from ace_lab.eval.metrics.evidence import answer_coverage  # noqa: E402
from ace_lab.eval.statistics import mean_interval, paired_bootstrap  # noqa: E402
from ace_lab.graph.names import chunk_node  # noqa: E402
from ace_lab.graph.seeds import build_seed_indexes  # noqa: E402
from ace_lab.graph.tables import GraphTables  # noqa: E402
from ace_lab.methods.naive import NaiveConfig, NaiveRetriever  # noqa: E402
from ace_lab.retrieval import RetrievalGraph  # noqa: E402

DEFAULT_SETS = ("hotpotqa_train_sample100_hipporag", "musique_train_sample100_hipporag")
POOLED = "_pooled"


def passage_graph(chunks: Sequence[Chunk], embedder: Any = None) -> RetrievalGraph:
    """A graph of ``chunks``' nodes and their passage index: what NaiveRAG reads of a build."""
    tables = GraphTables.from_records([chunk_node(c) for c in chunks], [], {"family": "passages"})
    indexes = build_seed_indexes(tables, embedder, progress=False)
    return RetrievalGraph(tables, indexes, name="passages", embedder=embedder)


def per_question(graph: RetrievalGraph, questions: Sequence[Question], budget: int) -> pd.DataFrame:
    """NaiveRAG's passage recall and answer coverage of each question (NaN where undefined)."""
    retriever = NaiveRetriever(graph, NaiveConfig(budget_tokens=budget))
    rows = []
    for q in tqdm(questions, desc=graph.name, unit="question", leave=False):
        evidence = retriever.retrieve(q.question)
        recall = passage_recall([e.id for e in evidence if e.kind == "passage"], q.supporting_ids)
        covered = answer_coverage("\n".join(e.text for e in evidence), list(q.answers))
        rows.append(
            {
                "id": q.id,
                "passage recall": np.nan if recall is None else recall,
                "answer coverage": np.nan if covered is None else float(covered),
            }
        )
    return pd.DataFrame(rows).set_index("id")


def measure_slice(
    dataset: str, n: int, budgets: Sequence[int], embedder: Any = None
) -> list[dict[str, Any]]:
    """One slice at each budget: its id, sizes and NaiveRAG's per-question values."""
    sl = load_slice(dataset, n)
    graph = passage_graph(chunk_passages(sl.passages), embedder)
    graph.name = sl.slice_id
    return [
        {
            "budget": budget,
            "slice": sl.slice_id,
            "questions": len(sl.questions),
            "passages": len(sl.passages),
            "values": per_question(graph, sl.questions, budget),
        }
        for budget in budgets
    ]


def _cell(values: pd.Series) -> str:
    found = values.dropna()
    return str(mean_interval(found.to_numpy(float))) if len(found) else ""


def rows_of(small: dict[str, Any], pooled: dict[str, Any]) -> list[dict[str, Any]]:
    """The two slices' rows and the paired row (pooled − small on the shared questions)."""
    rows = [
        {
            "budget": part["budget"],
            "slice": part["slice"],
            "questions": part["questions"],
            "passages searched": part["passages"],
            "passage recall [95% CI]": _cell(part["values"]["passage recall"]),
            "answer coverage [95% CI]": _cell(part["values"]["answer coverage"]),
        }
        for part in (small, pooled)
    ]
    shared = small["values"].index.intersection(pooled["values"].index)
    paired = {
        "budget": pooled["budget"],
        "slice": "pooled − small, same questions",
        "questions": len(shared),
    }
    for column in ("passage recall", "answer coverage"):
        both = pd.concat(
            [pooled["values"].loc[shared, column], small["values"].loc[shared, column]], axis=1
        ).dropna()
        if len(both):
            diff = paired_bootstrap(both.iloc[:, 0].to_numpy(), both.iloc[:, 1].to_numpy())
            paired[f"{column} [95% CI]"] = (
                f"{diff.mean_diff:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}]"
            )
    return [*rows, paired | {"passages searched": ""}]


def main(argv: Sequence[str] | None = None) -> int:
    from bench import record

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(DEFAULT_SETS))
    parser.add_argument("--small", type=int, default=20, help="questions of the small slice")
    parser.add_argument("--n", type=int, default=100, help="questions of the pooled slice")
    parser.add_argument(
        "--budgets", type=int, nargs="+", default=[300, 1500], help="context tokens"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "results/bench/pooled_retrieval")
    args = parser.parse_args(argv)
    run = record.Run(record.command_line())
    rows = []
    for dataset in args.sets:
        small = measure_slice(dataset, args.small, args.budgets)
        pooled = measure_slice(dataset + POOLED, args.n, args.budgets)
        for at_budget in zip(small, pooled, strict=True):
            rows += rows_of(*at_budget)
    record.publish(args.out, rows, run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
