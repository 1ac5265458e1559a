"""Router accuracy: Adaptive-ACE's topology router against the data sets' own question types.

    .venv/bin/python bench/router_accuracy.py [--datasets hotpotqa_dev_sample200 ...] \\
        [--n 20] [--seed 0] [--prompts paper fewshot] [--out results/router]

Routes every question of each data set's default slice (n = 20, seed 0) with each router
prompt — router calls only, no retrieval or answer — and scores the labels against the
question types under the proxy mapping of :data:`ace_lab.ace.analysis.PROXY_TOPOLOGY`
(HotpotQA bridge → CHAIN, comparison → CONTRAST; 2Wiki compositional and inference → CHAIN,
comparison and bridge_comparison → CONTRAST; MuSiQue hop counts → CHAIN). Writes to ``--out``:

- ``routes.json``: one record per question and prompt (slice, type, proxy, label, raw
  label, attempts, fallback), a JSON list (not ``.jsonl``: the folder is not a study);
- ``confusion.csv`` / ``confusion.md``: question type × label counts per data set and prompt,
  and the accuracy under the proxy mapping with a 95% bootstrap interval, computed from
  ``routes.json`` alone (:func:`render`; the tables and the reader are
  :mod:`ace_lab.ace.report.routes`, which notebook 08 shows), so they can be checked
  against it.

The LLM is the configured one (``ace-lab llm start`` for the local model); every response is
cached, so a rerun only recomputes the tables.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.ace.analysis import proxy_topology
from ace_lab.ace.report.routes import (  # noqa: F401  (read_routes: the tables' reader)
    accuracy_table,
    confusion_table,
    label_table,
    paired_table,
    read_routes,
)
from ace_lab.ace.router import ROUTER_PROMPTS, route
from ace_lab.data import Question
from ace_lab.eval.reporting.export import to_markdown
from ace_lab.evidence import Trace
from ace_lab.llm import LLM

DATASETS = ("hotpotqa_dev_sample200", "2wikimultihopqa_hipporag1000")
PROMPTS = tuple(ROUTER_PROMPTS)


def route_questions(
    llm: LLM, dataset: str, slice_id: str, questions: Iterable[Question], prompt: str
) -> list[dict[str, Any]]:
    """One row per question: its type and proxy topology, and the router's decision."""
    rows = []
    for q in questions:
        trace = Trace()
        with trace.activate(), trace.step("route"):
            decision = route(llm, q.question, prompt=prompt)  # type: ignore[arg-type]
        rows.append(
            {
                "dataset": dataset,
                "slice": slice_id,
                "prompt": prompt,
                "id": q.id,
                "type": q.type,
                "proxy": proxy_topology(q.type),
                "label": decision.topology,
                "raw_label": decision.raw_label,
                "attempts": decision.attempts,
                "fallback": decision.fallback,
                "question": q.question,
            }
        )
    return rows


def command(routes: pd.DataFrame) -> str:
    """The command line that makes ``routes`` (slices and prompts read from it)."""
    slices = list(dict.fromkeys(routes["slice"]))
    sizes = {s.rsplit("-n", 1)[1] for s in slices}  # "20-s0"
    n, seed = next(iter(sizes)).split("-s") if len(sizes) == 1 else ("?", "?")
    datasets = list(dict.fromkeys(routes["dataset"]))
    prompts = list(dict.fromkeys(routes["prompt"]))
    head = ".venv/bin/python bench/router_accuracy.py --datasets"
    return " ".join([head, *datasets, "--n", n, "--seed", seed, "--prompts", *prompts])


#: What the accuracy sections say when no routed question has a proxy label.
NO_PROXY = "No routed question has a type with a proxy label."


def render(routes: pd.DataFrame) -> dict[str, str]:
    """The contents of ``confusion.csv`` and ``confusion.md``, from ``routes`` alone."""
    confusion = confusion_table(routes)
    accuracy = accuracy_table(routes)
    paired = paired_table(routes)
    accuracy = accuracy[accuracy["n"] > 0]  # a slice without typed questions has no accuracy
    paired = paired[paired["n"] > 0] if not paired.empty else paired
    lines = [
        "# Router against the data sets' question types",
        "",
        f"Regenerate: `{command(routes)}` (router calls only; responses are cached).",
        "",
        "Proxy mapping (`ace_lab.ace.analysis.PROXY_TOPOLOGY`): HotpotQA bridge → CHAIN,",
        "comparison → CONTRAST; 2Wiki compositional, inference → CHAIN, comparison,",
        "bridge_comparison → CONTRAST; MuSiQue hop counts → CHAIN. No type maps to POINT or",
        "OVERVIEW, so those labels always count as wrong. Intervals: 95% Wilson score.",
        "Questions without a type (query-focused summaries) have no proxy label: read their",
        "routes under 'Labels per prompt' (the paper routes such summaries to OVERVIEW).",
        "",
        "## Accuracy under the proxy mapping",
        "",
        to_markdown(accuracy) if not accuracy.empty else NO_PROXY,
        "",
        "## Labels per prompt",
        "",
        to_markdown(label_table(routes)),
        "",
        "## Paired difference (same questions)",
        "",
        to_markdown(paired) if not paired.empty else NO_PROXY,
        "",
        "## Confusion (question type × router label)",
        "",
        to_markdown(confusion),
        "",
    ]
    return {"confusion.csv": confusion.to_csv(index=False), "confusion.md": "\n".join(lines)}


def write(routes: pd.DataFrame, out: Path) -> None:
    """``routes.json``, ``confusion.csv`` and ``confusion.md`` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    records = routes.astype(object).where(routes.notna(), None).to_dict("records")
    lines = ",\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    (out / "routes.json").write_text(f"[\n{lines}\n]\n", encoding="utf-8")
    for name, text in render(routes).items():
        (out / name).write_text(text, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    from ace_lab.data import load_slice
    from ace_lab.llm import get_llm

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prompts", nargs="+", default=list(PROMPTS), choices=PROMPTS)
    parser.add_argument("--out", type=Path, default=Path("results/router"))
    args = parser.parse_args(argv)
    llm = get_llm()
    rows: list[dict[str, Any]] = []
    for name in args.datasets:
        chosen = load_slice(name, args.n, args.seed)
        for prompt in args.prompts:
            start = time.perf_counter()
            rows += route_questions(llm, name, chosen.slice_id, chosen.questions, prompt)
            took = time.perf_counter() - start
            print(f"{name} {prompt}: {len(chosen.questions)} routed in {took:.0f} s", flush=True)
    routes = pd.DataFrame(rows)
    write(routes, args.out)
    print(to_markdown(accuracy_table(routes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
