"""How many generated tokens a format change alone can save: recorded extractions, re-rendered.

    .venv/bin/python bench/extraction_format_bound.py [--model qwen1.5b]
        [--out results/bench/extraction_format_bound]

Every committed hierarchical graph keeps each chunk's extraction (``hirag_extract.jsonl``: the
parsed entities and relations, and the reply's generated tokens as the server counted them).
This bench renders each record's content twice, as today's JSON reply (arrays, no keys:
:mod:`ace_lab.graph.hierarchy.extract`) and as the compact lines of
:mod:`ace_lab.graph.compact`, and counts both with the model's own tokenizer (the local
server's ``/tokenize``; no generation, so it is cheap and the machine's load does not matter).
The same content in fewer tokens is the most a format can save: generation is most of a build's
seconds, so the ratio bounds the speed-up of any reformatting that keeps the graph the same.
The JSON rendering is checked against the recorded token counts (its ``rendered / recorded``
column): a rendering far from them would make the bound meaningless.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: bench.record and ace_lab from the checkout
    sys.path.insert(0, str(ROOT))

from ace_lab.config import DEFAULT_TIER, load_settings  # noqa: E402

EXTRACT_FILE = "hirag_extract.jsonl"


def render_json(result: Mapping[str, Any]) -> str:
    """``result`` as the JSON reply today's hierarchical extraction asks for."""
    return json.dumps(
        {
            "entities": [[e["name"], e["type"], e["description"]] for e in result["entities"]],
            "relations": [
                [r["source"], r["target"], r["description"], r["strength"]]
                for r in result["relations"]
            ],
        },
        ensure_ascii=False,
    )


def render_compact(result: Mapping[str, Any]) -> str:
    """``result`` as the compact lines of :data:`ace_lab.graph.compact.HIERARCHICAL`."""
    lines = [f"E|{e['name']}|{e['type']}|{e['description']}" for e in result["entities"]]
    lines += [
        f"R|{r['source']}|{r['target']}|{r['description']}|{r['strength']}"
        for r in result["relations"]
    ]
    return "".join(f"{line}\n" for line in lines)


def records(graphs: Path, model: str) -> Iterable[tuple[str, dict[str, Any]]]:
    """(slice id, record) of every chunk's hierarchical extraction built by ``model``, from
    finished builds only (a build still extracting has no ``tables`` yet)."""
    for path in sorted(graphs.glob(f"*/hierarchical/{model}/{EXTRACT_FILE}")):
        if not (path.parent / "tables").is_dir():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield path.parts[-4], json.loads(line)


def measure(
    found: Iterable[tuple[str, dict[str, Any]]], count: Callable[[str], int]
) -> list[dict[str, Any]]:
    """One row per slice and one for all: chunks, recorded, JSON-rendered and compact-rendered
    tokens per chunk, and the two ratios (chunks whose extraction fell back are left out)."""
    per: dict[str, list[tuple[int, int, int]]] = {}
    for slice_id, record in found:
        if record.get("fallbacks") or not record.get("completion_tokens"):
            continue
        result = record["result"]
        per.setdefault(slice_id, []).append(
            (
                record["completion_tokens"],
                count(render_json(result)),
                count(render_compact(result)),
            )
        )
    everything = [t for counts in per.values() for t in counts]
    return [_row(name, counts) for name, counts in [*sorted(per.items()), ("all", everything)]]


def _row(name: str, counts: Sequence[tuple[int, int, int]]) -> dict[str, Any]:
    recorded, as_json, compact = (sum(c[i] for c in counts) for i in range(3))
    n = max(len(counts), 1)
    return {
        "slice": name,
        "chunks": len(counts),
        "recorded tokens/chunk": round(recorded / n, 1),
        "JSON rendered tokens/chunk": round(as_json / n, 1),
        "rendered / recorded": round(as_json / recorded, 3) if recorded else None,
        "compact tokens/chunk": round(compact / n, 1),
        "compact / JSON": round(compact / as_json, 3) if as_json else None,
    }


def server_counter(model: str) -> Callable[[str], int]:
    """Token count of a text by the local server of ``model`` (started if need be)."""
    from ace_lab.llm import LLM

    llm = LLM(load_settings(tier=model))
    llm.client()  # starts the server; its base URL ends in /v1
    root = str(llm.endpoint).rstrip("/").removesuffix("/v1")

    def count(text: str) -> int:
        body = json.dumps({"content": text}).encode()
        request = urllib.request.Request(
            f"{root}/tokenize", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as reply:
            return len(json.load(reply)["tokens"])

    return count


def main(argv: Sequence[str] | None = None) -> int:
    from bench import record

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=DEFAULT_TIER)
    parser.add_argument("--graphs", type=Path, default=ROOT / "data/graphs")
    parser.add_argument("--out", type=Path, default=ROOT / "results/bench/extraction_format_bound")
    args = parser.parse_args(argv)
    run = record.Run(record.command_line())
    rows = measure(records(args.graphs, args.model), server_counter(args.model))
    record.publish(args.out, rows, run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
