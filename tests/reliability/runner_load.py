"""The evaluation runner at concurrency 4 against the local LLM server (issue 13, item 7).

``ace_lab.eval.studies.runner.run`` answers every toy question with ``naive`` at ``concurrency=4``
through the real local server on the smoke tier (SmolLM2-135M, started by the first call and
stopped at the end), with an empty response cache so every answer is a model call. Every
question's record must be written exactly once (the results file parses strictly, one line per
question id), no question may fail (no errors file, ``errors == 0``) and the manifest must count
them all. The toy graph is built with the scripted extraction model of the unit tests.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROW = "runner at concurrency 4"
METHOD, DATASET, N, CONCURRENCY = "naive", "toy", 8, 4


def toy_graph(work: Path) -> Any:
    """The hierarchical toy graph (scripted extraction, MiniLM seed indexes)."""
    from ace_lab.config import Settings
    from ace_lab.data import chunk_passages, load_dataset
    from ace_lab.graph.hierarchy import build_hierarchical
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.llm import LLM
    from ace_lab.retrieval import RetrievalGraph
    from tests.support.extraction import hierarchy_config, hierarchy_reply
    from tests.support.scripted import ScriptedClient

    llm = LLM(Settings(cache_dir=work / "build-cache"), client=ScriptedClient(hierarchy_reply))
    chunks = chunk_passages(load_dataset(DATASET).passages)
    tables = build_hierarchical(chunks, llm, work / "build", hierarchy_config(), progress=False)
    indexes = build_seed_indexes(tables, progress=False, cache=False)
    return RetrievalGraph(tables, indexes, name="toy")


def run_once(work: Path) -> dict[str, Any]:
    from ace_lab.config import load_settings
    from ace_lab.eval.studies.runner import run
    from ace_lab.eval.studies.study import read_jsonl, results_path, study_dir
    from ace_lab.llm import LLM, server

    base = load_settings()
    settings = replace(
        base, cache_dir=work / "cache", results_dir=work / "results", graphs_dir=work / "graphs"
    ).with_llm(tier="smollm135m", base_url=None, model=None)
    graph = toy_graph(work)
    llm = LLM(settings)
    began = time.perf_counter()
    try:
        frame = run(
            METHOD,
            DATASET,
            N,
            study="load",
            settings=settings,
            llm=llm,
            graph=graph,
            concurrency=CONCURRENCY,
            progress=False,
        )
    finally:
        server.stop(settings)
    seconds = time.perf_counter() - began
    path = results_path("load", METHOD, settings)
    lines = path.read_bytes().split(b"\n")
    records = read_jsonl(path)  # strict: a corrupt line raises
    manifest = json.loads((study_dir("load", settings) / "manifest.json").read_text())
    return {
        "questions": N,
        "ids": [r["id"] for r in records],
        "torn_tail": lines[-1] != b"",
        "errors": int(frame.attrs["errors"]),
        "errors_file": any(study_dir("load", settings).glob("*.errors.jsonl")),
        "manifest_records": manifest["methods"][METHOD]["records"],
        "model_calls": int(frame["model_calls"].sum()),
        "seconds": round(seconds, 1),
    }


def measure(full: bool) -> list[dict[str, Any]]:
    """One run (the same at both scales: eight questions are cheap on the smoke tier).

    An attempt is a question: it holds when its record is in the results file exactly once.
    A torn line, an errors file or a manifest that disagrees fails them all.
    """
    with tempfile.TemporaryDirectory(prefix="ace-runner-load-") as tmp:
        out = run_once(Path(tmp))
    ids = out["ids"]
    once = sum(ids.count(i) == 1 for i in set(ids))
    broken = (
        out["errors"]
        or out["errors_file"]
        or out["torn_tail"]
        or out["manifest_records"] != len(ids)
        or out["model_calls"] < out["questions"]
    )
    held = 0 if broken else min(once, out["questions"])
    note = (
        f"{METHOD} on the toy graph at concurrency {CONCURRENCY}, smollm135m local server, "
        f"cold cache: {len(ids)} records for {out['questions']} questions, {out['errors']} "
        f"errors, {out['model_calls']} model calls, {out['seconds']} s"
    )
    attempts = out["questions"]
    return [
        {
            "property": ROW,
            "attempts": attempts,
            "held": held,
            "failed": attempts - held,
            "note": note,
        }
    ]
