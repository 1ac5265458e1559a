"""The processes that :mod:`tests.reliability.crash_resume` kills: a graph build and an
evaluation run on the toy corpus with a scripted, deterministic model.

Run as ``python -m tests.reliability.crash_driver serve``: a fork server (:func:`serve`) whose
workers the parent kills; ``build|run WORKDIR DELAY_S [GRAPH_DIR]`` runs one worker in the
foreground. The model is the scripted client of ``tests/support/`` (the same replies every
time, so an interrupted and an uninterrupted run must agree), sleeping ``DELAY_S`` per call so
that a kill lands mid-work. Embeddings come from :class:`HashEmbedder`, so no model is loaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ace_lab.config import Settings, load_settings

#: The slice both children work on: every toy question and the passages they need.
DATASET, N = "toy", 8
#: The method the evaluation child runs: two LLM calls and three retrievals per question.
METHOD = "ace-full"
STUDY = "crash"
#: Where the build child writes, relative to the work dir (``graphs_dir/<slice>/<family>/<model>``).
FAMILY, MODEL = "hierarchical", "smollm135m"
#: What the fork server imports before forking (everything the workers use).
PRELOAD = (
    "ace_lab.graph.build", "ace_lab.graph.hierarchy", "ace_lab.graph.seeds", "ace_lab.registry",
    "ace_lab.eval.studies.runner", "ace_lab.retrieval", "tests.support.scripted",
    "tests.support.extraction", "tests.support.replies",
)  # fmt: skip


class HashEmbedder:
    """Deterministic unit vectors from a text's hash: an embedder that needs no model."""

    model_id = "test:hash32"
    dim = 32

    def encode(self, texts: list[str]) -> np.ndarray:
        rows = [
            np.random.default_rng(
                int(hashlib.sha256(t.encode()).hexdigest()[:16], 16)
            ).standard_normal(self.dim)
            for t in texts
        ]
        out = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True).clip(min=1e-12)


@contextlib.contextmanager
def hashed_layers() -> Iterator[None]:
    """The hierarchical build's summary layers embed with :class:`HashEmbedder` meanwhile.

    Loading MiniLM would double every restart's cost; the layers' clustering only needs the
    same vectors in every run, which the hash gives.
    """
    from ace_lab.graph.hierarchy import layers

    def embed(texts: Sequence[str], *args: Any, **kwargs: Any) -> np.ndarray:
        return HashEmbedder().encode(list(texts))

    original = layers.embed
    layers.embed = embed
    try:
        yield
    finally:
        layers.embed = original


def default_user_model_dir() -> Path:
    """The model folder without ``ACE_LAB_CACHE_DIR`` (``$XDG_CACHE_HOME/ace_lab/models``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ace_lab" / "models"


def work_settings(work: Path) -> Settings:
    """The smoke tier (never started: the client is scripted), every path under ``work``."""
    base = load_settings()
    return Settings(
        data_dir=base.data_dir,
        cache_dir=work / "cache",
        # the user's model folder, not one under ACE_LAB_CACHE_DIR (which a worker sets): the
        # model's identity, part of every archived response's key, must not depend on it
        model_dir=default_user_model_dir(),
        results_dir=work / "results",
        figures_dir=work / "figures",
        graphs_dir=work / "graphs",
        llm=replace(base.llm, base_url=None, model=None, tier=MODEL, concurrency=2),
        embed=base.embed,
    )


def run_dir(work: Path) -> Path:
    """The build's run folder under ``work`` (records, archive, tables)."""
    from ace_lab.graph.build import run_dir as graph_run_dir
    from ace_lab.graph.build import slice_chunks

    sl, _ = slice_chunks(DATASET, N)
    return graph_run_dir(work_settings(work), sl.slice_id, FAMILY, MODEL)


def build(work: Path, delay_s: float, announce: bool = True) -> None:
    """Build (or resume) the toy hierarchical graph; no seed index (it needs no LLM)."""
    import ace_lab.graph.hierarchy  # noqa: F401 - imported before "ready": kills time work
    from ace_lab.graph.build import build_graph
    from ace_lab.llm import LLM
    from tests.support.extraction import hierarchy_config, hierarchy_reply
    from tests.support.scripted import ScriptedClient

    settings = work_settings(work)
    llm = LLM(settings, client=ScriptedClient(hierarchy_reply, delay_s=delay_s))
    if announce:
        _ready()
    with hashed_layers():
        build_graph(
            DATASET,
            N,
            FAMILY,
            settings=settings,
            llm=llm,
            progress=False,
            with_index=False,
            config=hierarchy_config(),
        )


def evaluate(work: Path, delay_s: float, graph_dir: Path, announce: bool = True) -> None:
    """Run (or resume) ``METHOD`` over the toy questions on the graph saved in ``graph_dir``."""
    import ace_lab.registry  # noqa: F401 - imported before "ready": kills time work
    from ace_lab.eval.studies.runner import run
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.graph.tables import GraphTables
    from ace_lab.llm import LLM
    from ace_lab.retrieval import RetrievalGraph
    from tests.support.replies import ace_reply
    from tests.support.scripted import ScriptedClient

    settings = work_settings(work)
    tables = GraphTables.load(graph_dir)
    embedder = HashEmbedder()
    indexes = build_seed_indexes(tables, embedder, progress=False, cache=False)
    graph = RetrievalGraph(tables, indexes, name="toy", embedder=embedder)
    llm = LLM(settings, client=ScriptedClient(ace_reply, delay_s=delay_s))
    if announce:
        _ready()
    run(
        METHOD,
        DATASET,
        N,
        study=STUDY,
        settings=settings,
        llm=llm,
        graph=graph,
        concurrency=2,
        progress=False,
    )


def _ready() -> None:
    print("ready", flush=True)


def serve() -> None:
    """A fork server: import everything once, then fork one worker per command on stdin.

    Commands are ``build WORK DELAY`` and ``run WORK DELAY GRAPH_DIR``; for each, the pid of
    the forked worker is printed, then ``exit PID STATUS`` once it ends (a SIGKILL shows as
    ``-9``). The parent kills workers by pid: a worker is a whole process like any other, it
    only skips the seconds of imports a fresh interpreter would spend before doing any work.
    """
    for module in PRELOAD:
        importlib.import_module(module)
    print("ready", flush=True)
    for line in sys.stdin:
        kind, work, delay, *extra = line.split()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.environ["ACE_LAB_CACHE_DIR"] = str(Path(work) / "cache")
                if kind == "build":
                    build(Path(work), float(delay), announce=False)
                else:
                    evaluate(Path(work), float(delay), Path(extra[0]), announce=False)
                code = 0
            finally:
                os._exit(code)
        print(pid, flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"exit {pid} {os.waitstatus_to_exitcode(status)}", flush=True)


def main(argv: list[str]) -> int:
    kind = argv[0]
    if kind == "serve":
        serve()
        return 0
    work, delay = Path(argv[1]), float(argv[2])
    if kind == "build":
        build(work, delay)
    elif kind == "run":
        evaluate(work, delay, Path(argv[3]))
    else:
        raise SystemExit(f"usage: crash_driver serve|build|run WORKDIR DELAY_S [GRAPH], not {kind}")
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
