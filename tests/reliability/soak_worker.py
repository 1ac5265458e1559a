"""The process the soak (``bench/soak.py``) kills: rounds of a study on a registered corpus.

Run as ``python -m tests.reliability.soak_worker ROOT BASE_URL MODEL STUDY_PREFIX [ROUNDS]``
with ``ACE_LAB_USER_DATA`` and the ``ACE_LAB_*_DIR`` variables naming folders under ``ROOT``.
Round ``r`` is the study ``<STUDY_PREFIX>-<r>`` of :data:`METHODS` over every question of
:data:`CORPUS`, with its own LLM cache (``ROOT/cache/<r>``, so every round asks the model
afresh) answered by the OpenAI-compatible server at ``BASE_URL``. A round is finished when a
run of it ends with no failed question (``ROOT/done/<r>`` is then written); a restarted worker
resumes at the first unfinished round, whose run resumes at its first unanswered question. The
worker stops after ``ROUNDS`` rounds (default: never), or once ``ROOT/stop`` exists and every
round it began is finished. Retrieval uses a chunk graph with hash embeddings
(:class:`~tests.reliability.crash_driver.HashEmbedder`), so the only model is the LLM.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from ace_lab.config import Settings, load_settings

#: The registered corpus and the methods every round runs over it.
CORPUS = "soak_corpus"
METHODS = ("naive",)
#: Generous retries: at 20 % faults a call fails only after this many faults in a row.
MAX_RETRIES = 8
#: Seconds one call may take (the fault proxy's hangs last longer, so they time out).
TIMEOUT_S = 10.0


def corpus_graph() -> Any:
    """A chunk-only retrieval graph of :data:`CORPUS` with hash embeddings (deterministic)."""
    from ace_lab.data import chunk_passages, load_dataset
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.graph.tables import GraphTables
    from ace_lab.retrieval import RetrievalGraph
    from tests.reliability.crash_driver import HashEmbedder

    nodes = [
        {"id": c.id, "label": "Chunk", "name": c.title, "description": c.text, "source_ids": [c.id]}
        for c in chunk_passages(load_dataset(CORPUS).passages)
    ]
    tables = GraphTables.from_records(nodes, [], {"family": "test"})
    embedder = HashEmbedder()
    indexes = build_seed_indexes(tables, embedder, progress=False, cache=False)
    return RetrievalGraph(tables, indexes, name=CORPUS, embedder=embedder)


def round_settings(root: Path, base_url: str, model: str, round_name: str) -> Settings:
    """The settings of one round: its own LLM cache, the shared results folder."""
    base = load_settings()
    llm = replace(
        base.llm,
        base_url=base_url,
        model=model,
        api_key="sk-none",
        timeout_s=TIMEOUT_S,
        max_retries=MAX_RETRIES,
        retry_backoff_s=0.05,
        retry_wait_max_s=0.5,
        concurrency=1,
    )
    return replace(base, cache_dir=root / "cache" / round_name, llm=llm)


def run_round(root: Path, base_url: str, model: str, study: str, round_name: str) -> int:
    """Run (or resume) one round; the number of questions that failed this time."""
    from ace_lab.eval.studies.runner import run
    from ace_lab.llm import LLM

    settings = round_settings(root, base_url, model, round_name)
    llm = LLM(settings)
    graph = corpus_graph()
    errors = 0
    for method in METHODS:
        frame = run(
            method, CORPUS, 0, study=study, settings=settings, llm=llm, graph=graph, progress=False
        )
        errors += int(frame.attrs.get("errors", 0))
    return errors


def main(argv: list[str]) -> int:
    root, base_url, model, prefix = Path(argv[0]), argv[1], argv[2], argv[3]
    rounds = int(argv[4]) if len(argv) > 4 else None
    done = root / "done"
    done.mkdir(parents=True, exist_ok=True)
    r = 0
    results = load_settings().results_dir
    while rounds is None or r < rounds:
        name, study = f"{r:04d}", f"{prefix}-{r:04d}"
        if not (done / name).exists():
            if (root / "stop").exists() and not (results / study).exists():
                return 0  # asked to stop: every round begun is finished
            if not run_round(root, base_url, model, study, name):
                (done / name).write_text("done\n")
            continue  # a round with failed questions runs again
        r += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
