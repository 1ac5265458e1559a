"""Compact against JSON extraction on the same chunks: output tokens, seconds, agreement.

    .venv/bin/python bench/extraction_speed.py
        [--datasets hotpotqa_dev_sample200 musique_dev_sample292] [--chunks 20]
        [--families hierarchical openie typed] [--model qwen1.5b]
        [--out results/bench/extraction_speed]

The first ``--chunks`` chunks of each data set's committed slice (40 in all by default) are
extracted twice per family, with today's JSON output and with the compact lines of
:mod:`ace_lab.graph.compact`, through the same model with the response cache off (every call
reaches the model, so seconds are the model's), one chunk at a time and the two formats
interleaved per chunk, so machine load falls on both alike. Per family and format: output
(generated) tokens and seconds per chunk, the speed-up of compact over JSON, and agreement with
the JSON extraction of the same chunk: entity F1 (names compared after
:func:`~ace_lab.graph.names.normalise_name`) and triple F1 (subject and object pairs, unordered;
typed triples also by relation). Typed needs its committed build's schema (``typed_schema``):
a data set without one is left out of the typed rows. Results: ``<out>.json/.csv/.md``
(:mod:`bench.record`). It calls the model: run it only on a machine whose LLM is free.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import mean
from typing import Any

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: bench.record and ace_lab from the checkout
    sys.path.insert(0, str(ROOT))

from ace_lab.config import DEFAULT_TIER, load_settings  # noqa: E402
from ace_lab.data import Chunk  # noqa: E402
from ace_lab.graph.build import extraction_config, slice_chunks  # noqa: E402
from ace_lab.graph.names import normalise_name  # noqa: E402
from ace_lab.llm import LLM  # noqa: E402

FORMATS = ("json", "compact")
DEFAULT_DATASETS = ("hotpotqa_dev_sample200", "musique_dev_sample292")
#: The slice of each default data set whose graphs are committed (the chunks come from it).
SLICE_N = {"hotpotqa_dev_sample200": 20, "musique_dev_sample292": 10}


def extractor(family: str, extraction: str, llm: LLM, schema: Any = None) -> Callable:
    """Chunk → ``(entity names, triple keys)`` with ``family``'s extraction in ``extraction``."""
    config = extraction_config(family, extraction)
    if family == "hierarchical":
        from ace_lab.graph.hierarchy.extract import extract_chunk

        def hierarchical(chunk: Chunk) -> tuple[set[str], set[tuple]]:
            out = extract_chunk(chunk, llm, config)
            names = {e["name"] for e in out["entities"]}
            return names, {_pair(r["source"], r["target"]) for r in out["relations"]}

        return hierarchical
    if family == "openie":
        from ace_lab.graph.openie import _extractor

        run = _extractor(llm, config)

        def openie(chunk: Chunk) -> tuple[set[str], set[tuple]]:
            out = run(chunk)
            return set(out["named_entities"]), {_pair(s, o) for s, _, o in out["triples"]}

        return openie
    from ace_lab.graph.typed.extract import extractor as typed_extractor

    run = typed_extractor(llm, schema, config)

    def typed(chunk: Chunk) -> tuple[set[str], set[tuple]]:
        out = run(chunk)
        names = {t[k] for t in out["triples"] for k in ("subject", "object")}
        keys = {(*_pair(t["subject"], t["object"]), t["relation"]) for t in out["triples"]}
        return names, keys

    return typed


def _pair(a: str, b: str) -> tuple[str, str]:
    return tuple(sorted((normalise_name(a), normalise_name(b))))  # type: ignore[return-value]


def f1(found: set, reference: set) -> float:
    """Set F1 of ``found`` against ``reference`` (1.0 when both are empty)."""
    if not found and not reference:
        return 1.0
    hits = len(found & reference)
    return 2 * hits / (len(found) + len(reference))


def measure_chunk(run: Callable, chunk: Chunk, llm: LLM) -> dict[str, Any]:
    """One extraction of ``chunk``: names, triple keys, generated tokens, seconds."""
    before = len(llm.ledger.calls)
    start = time.perf_counter()
    names, triples = run(chunk)
    seconds = time.perf_counter() - start
    calls = llm.ledger.calls[before:]
    return {
        "names": {normalise_name(n) for n in names if normalise_name(n)},
        "triples": triples,
        "output_tokens": sum(c.response_completion_tokens for c in calls),
        "seconds": seconds,
    }


def measure(
    chunks: Sequence[tuple[str, Chunk]],
    families: Sequence[str],
    llm: LLM,
    schemas: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """One row per family and format over ``chunks`` ((data set, chunk) pairs), the formats
    interleaved per chunk; agreement is the compact extraction's against the JSON one."""
    rows = []
    for family in families:
        usable = [(d, c) for d, c in chunks if family != "typed" or (schemas or {}).get(d)]
        per: dict[str, list[dict[str, Any]]] = {f: [] for f in FORMATS}
        for dataset, chunk in tqdm(usable, desc=f"{family} (json + compact)", unit="chunk"):
            schema = (schemas or {}).get(dataset)
            for extraction in FORMATS:
                run = extractor(family, extraction, llm, schema)
                per[extraction].append(measure_chunk(run, chunk, llm))
        if not usable:
            continue
        json_s = mean(m["seconds"] for m in per["json"])
        for extraction in FORMATS:
            done = per[extraction]
            seconds = mean(m["seconds"] for m in done)
            pairs = list(zip(done, per["json"], strict=True))
            rows.append(
                {
                    "family": family,
                    "format": extraction,
                    "chunks": len(done),
                    "output tokens/chunk": round(mean(m["output_tokens"] for m in done), 1),
                    "s/chunk": round(seconds, 2),
                    "speed-up vs json": round(json_s / seconds, 2) if seconds else None,
                    "entity F1 vs json": round(
                        mean(f1(a["names"], b["names"]) for a, b in pairs), 3
                    ),
                    "triple F1 vs json": round(
                        mean(f1(a["triples"], b["triples"]) for a, b in pairs), 3
                    ),
                }
            )
    return rows


def bench_chunks(datasets: Sequence[str], per_set: int) -> list[tuple[str, Chunk]]:
    """The first ``per_set`` chunks of each data set's committed slice."""
    chosen = []
    for dataset in datasets:
        _, chunks = slice_chunks(dataset, SLICE_N.get(dataset, 20))
        chosen += [(dataset, c) for c in chunks[:per_set]]
    return chosen


def committed_schemas(datasets: Sequence[str], model: str, settings: Any) -> dict[str, Any]:
    """The induced schema of each data set's committed typed build (none where absent)."""
    import json

    from ace_lab.graph.build import run_dir
    from ace_lab.graph.typed.config import SCHEMA_FILE
    from ace_lab.graph.typed.schema import InducedSchema

    found = {}
    for dataset in datasets:
        sl, _ = slice_chunks(dataset, SLICE_N.get(dataset, 20))
        path = run_dir(settings, sl.slice_id, "typed", model) / SCHEMA_FILE
        if path.is_file():
            found[dataset] = InducedSchema.from_dict(json.loads(path.read_text(encoding="utf-8")))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    from bench import record

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DEFAULT_DATASETS))
    parser.add_argument("--chunks", type=int, default=20, help="chunks per data set")
    parser.add_argument("--families", nargs="+", default=["hierarchical", "openie"])
    parser.add_argument("--model", default=DEFAULT_TIER)
    parser.add_argument("--out", type=Path, default=ROOT / "results/bench/extraction_speed")
    args = parser.parse_args(argv)
    settings = load_settings(tier=args.model).with_llm(cache=False)
    llm = LLM(settings)
    run = record.Run(record.command_line())
    schemas = committed_schemas(args.datasets, args.model, settings)
    rows = measure(bench_chunks(args.datasets, args.chunks), args.families, llm, schemas)
    record.publish(args.out, rows, run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
