"""Graph build and load costs of the committed default slice, measured side by side.

    python bench/graph_build.py [--dataset hotpotqa_dev_sample200] [--n 20] [--model qwen1.5b]

For each family with a finished build:
* **rebuild from cache** — ``build_graph`` rerun in a scratch copy of the run folder (its
  per-chunk records and archived responses) with an empty response cache and a client that fails
  on any call, so this is the non-LLM cost of a build (merging, clustering, Leiden, indexing),
  printed next to the wall time recorded by the last build of the artefact (for a first build,
  mostly LLM time; a rebuild from cache records its own, short, time);
* **store load** — loading the tables into a fresh embedded FalkorDB.
Then ``bench/hybrid_index.py`` prints hybrid query latency over the whole 2Wiki corpus.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd

from ace_lab.config import DEFAULT_TIER, load_settings
from ace_lab.graph.build import FAMILIES, build_graph, load_graph
from ace_lab.graph.build import run_dir as run_dir_of
from ace_lab.graph.store import FalkorDBServerProcess
from ace_lab.llm import LLM, ResponseArchive


class _NoModel:
    """An OpenAI-shaped client that refuses every call: a rebuild must replay, not generate."""

    class _Completions:
        def create(self, **_: object) -> None:
            raise RuntimeError("the rebuild tried to call the model")

    def __init__(self) -> None:
        self.chat = type("Chat", (), {"completions": self._Completions()})()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="hotpotqa_dev_sample200")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--model", default=DEFAULT_TIER)
    args = parser.parse_args()
    settings = load_settings(tier=args.model)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        server = FalkorDBServerProcess(Path(tmp) / "falkordb").start()
        for family in FAMILIES:
            try:
                tables, run_dir = load_graph(
                    args.dataset, args.n, family, model=args.model, settings=settings
                )
            except FileNotFoundError as exc:
                print(f"skipping {family}: {exc}")
                continue
            # Rebuild in a scratch folder (the committed artefact stays untouched), with an empty
            # response cache: only the build's archived responses can answer.
            fresh = replace(settings, cache_dir=Path(tmp) / "cache", graphs_dir=Path(tmp) / "g")
            scratch = run_dir_of(fresh, tables.meta["slice_id"], family, args.model)
            scratch.mkdir(parents=True)
            for record_file in [*run_dir.glob("*.jsonl"), *run_dir.glob("*.json")]:
                shutil.copy(record_file, scratch)  # per-chunk records + archived responses
            llm = LLM(fresh, client=_NoModel())
            llm.archives.append(ResponseArchive(run_dir / "llm_responses.jsonl"))
            start = time.perf_counter()
            rebuilt, _ = build_graph(
                args.dataset, args.n, family, settings=fresh, llm=llm, progress=False
            )
            rebuild_s = time.perf_counter() - start
            store = server.store(family)
            start = time.perf_counter()
            store.load(tables)
            load_s = time.perf_counter() - start
            build_s = float(tables.meta.get("build_wall_s", float("nan")))
            rows.append(
                {
                    "family": family,
                    "nodes": len(tables.nodes),
                    "edges": len(tables.edges),
                    "last_build_s": build_s,
                    "rebuild_from_cache_s": round(rebuild_s, 2),
                    "last_build/rebuild": round(build_s / rebuild_s, 1),
                    "identical": bool(rebuilt.nodes.equals(tables.nodes)),
                    "store_load_s": round(load_s, 3),
                }
            )
        server.stop()
    print(pd.DataFrame(rows).to_string(index=False))
    print()
    hybrid = Path(__file__).with_name("hybrid_index.py")
    subprocess.run([sys.executable, str(hybrid)], check=False)


if __name__ == "__main__":
    main()
