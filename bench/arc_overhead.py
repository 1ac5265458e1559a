"""ArcRAG's overhead: Cypher execution time against LLM time, interface size against graph size.

    .venv/bin/python bench/arc_overhead.py [--studies S ...]

Reads the records of ArcRAG-family methods (``arcrag``, its ablations, ``direct-cypher``, any
budget or ``@family`` suffix) in the given studies (default: every study under results/) —
made by e.g. ``ace-lab run --methods arcrag arcrag@openie direct-cypher --dataset
hotpotqa_dev_sample200 --n 20`` — and prints per study and method, side by side:

- **time**: Cypher queries executed per question (the probe's, the explorers' and the
  generator's), their summed store time, the question's LLM time with an empty response cache
  (``cold_wall_s`` minus the non-LLM rest, else ``llm_s``) and the Cypher share of the two;
- **size**: the query-local interface ``Ŝ_q`` (descriptors + signatures + alias groups, the
  largest over a question's passes) against the size of the graph it was explored in (nodes,
  edges). The paper's claim is that ``Ŝ_q`` scales with the exploration budget, not with the
  graph: across graphs of different sizes the interface should stay about the same size, and the
  ``interface/nodes`` ratio should fall as the graph grows.

No LLM is called. Graph sizes come from the committed graph archives (``data/graphs``); a
graph that is not on this machine leaves its size columns empty.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.arc.names import ARC_HEADS
from ace_lab.config import load_settings
from ace_lab.eval.reporting.export import to_markdown
from ace_lab.eval.studies.study import read_jsonl, record_files
from ace_lab.registry import graph_family, head_of


def is_arc_method(method: str) -> bool:
    """``arcrag``, ``arcrag:r1p1@openie``, ``direct-cypher`` … (not ``ace-full``)."""
    return head_of(method) in ARC_HEADS


def family_of(method: str) -> str:
    """The graph family a method name reads (``@openie``; ArcRAG's default is the typed graph)."""
    return graph_family(method)


def _median(values: Iterable[float]) -> float:
    values = [float(v) for v in values]
    return statistics.median(values) if values else float("nan")


def _mean(values: Iterable[float]) -> float:
    values = [float(v) for v in values]
    return statistics.fmean(values) if values else float("nan")


def llm_seconds(record: Mapping[str, Any]) -> float:
    """The question's LLM seconds as if no response was cached: the model time of every call
    (cold wall minus what the recorded steps spent outside the LLM), else the live LLM time."""
    cold = record.get("cold_wall_s")
    if cold is not None:
        non_llm = record.get("wall_s", 0.0) - record.get("llm_s", 0.0)
        return max(0.0, float(cold) - max(0.0, float(non_llm)))
    return float(record.get("llm_s") or 0.0)


def overhead_rows(
    study: str,
    records: Iterable[Mapping[str, Any]],
    graph_size: Callable[[str], tuple[int, int] | None],
) -> list[dict[str, Any]]:
    """One row per ArcRAG-family method of ``study``: time and size columns (see the module)."""
    by_method: dict[str, list[Mapping[str, Any]]] = {}
    for rec in records:
        if is_arc_method(str(rec.get("method", ""))) and isinstance(rec.get("stats"), dict):
            by_method.setdefault(str(rec["method"]), []).append(rec)
    rows = []
    for method, recs in by_method.items():
        stats = [r["stats"] for r in recs]
        cypher_s = [s.get("cypher_ms", 0.0) / 1000 for s in stats]
        llm_s = [llm_seconds(r) for r in recs]
        size = graph_size(family_of(method))
        interface = [s.get("interface_size", 0) for s in stats]
        rows.append(
            {
                "study": study,
                "method": method,
                "n": len(recs),
                "cypher_per_q": _mean(s.get("cypher_executed", 0) for s in stats),
                "cypher_s_per_q": _mean(cypher_s),
                "cypher_ms_median_query": _median(
                    s.get("cypher_ms", 0.0) / s["cypher_executed"]
                    for s in stats
                    if s.get("cypher_executed")
                ),
                "llm_s_per_q": _mean(llm_s),
                "cypher_share": sum(cypher_s) / (sum(cypher_s) + sum(llm_s))
                if sum(cypher_s) + sum(llm_s)
                else float("nan"),
                "interface_mean": _mean(interface),
                "interface_max": max(interface, default=0),
                "graph_nodes": size[0] if size else None,
                "graph_edges": size[1] if size else None,
                "interface_per_1k_nodes": 1000 * _mean(interface) / size[0]
                if size and size[0]
                else None,
            }
        )
    return rows


def archive_graph_size(slice_id: str, family: str, graphs_dir: Path) -> tuple[int, int] | None:
    """Nodes and edges of a committed graph archive (None when it is not here)."""
    from ace_lab.graph.tables import GraphTables

    for tables_dir in sorted((graphs_dir / slice_id / family).glob("**/tables")):
        try:
            tables = GraphTables.load(tables_dir)
        except (OSError, ValueError) as exc:
            print(f"{tables_dir}: unreadable graph archive ({exc})")
            return None
        return len(tables.nodes), len(tables.edges)
    return None


def study_slice(study_dir: Path) -> str:
    """The slice a study answered (its manifest's ``slice_id``; the folder name otherwise)."""
    try:
        manifest = json.loads((study_dir / "manifest.json").read_text(encoding="utf-8"))
        return str(manifest.get("slice_id") or study_dir.name)
    except (OSError, ValueError):
        return study_dir.name


def overhead_table(
    results_dir: Path, graphs_dir: Path, studies: list[str] | None = None
) -> pd.DataFrame:
    """Every ArcRAG-family record under ``results_dir`` (or the named studies), one row each
    study × method."""
    rows: list[dict[str, Any]] = []
    dirs = [results_dir / s for s in studies] if studies else sorted(results_dir.iterdir())
    for study_dir in dirs:
        # records name their method; file names do not ("arcrag:r1p3@openie" is stored as a
        # safe file name), so every record file is read and overhead_rows keeps ArcRAG's
        files = record_files(study_dir)
        if not files:
            continue
        records = [r for f in files for r in read_jsonl(f)]
        slice_id = study_slice(study_dir)
        rows += overhead_rows(
            study_dir.name,
            records,
            lambda family, s=slice_id: archive_graph_size(s, family, graphs_dir),
        )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", nargs="*", help="results/<study> folders (default: all)")
    args = parser.parse_args(argv)
    settings = load_settings()
    table = overhead_table(settings.results_dir, settings.graphs_dir, args.studies)
    if table.empty:
        print(
            "no ArcRAG records yet: run e.g. `ace-lab run --methods arcrag arcrag@openie "
            "direct-cypher --dataset hotpotqa_dev_sample200 --n 20` first"
        )
        return table
    print(to_markdown(table, floatfmt=".3f"))
    return table


if __name__ == "__main__":
    main()
