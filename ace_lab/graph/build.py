"""Build entry point shared by notebooks and ``ace-lab build``.

A build takes a deterministic slice of a data set, chunks it, runs one graph family's builder
through the (cached) LLM, and writes everything under one run directory keyed by data set,
slice, family and model:

    <graphs_dir>/<slice_id>/<family>/<model>/
        *_extract.jsonl   per-chunk LLM extractions (resumable: a rerun skips finished chunks)
        llm_responses.jsonl  every LLM response the build used: a rebuild on a fresh clone
                          (empty response cache) replays them and makes no model call
        tables/           GraphTables (nodes.parquet, edges.parquet, meta.json)
        index/            seed indexes (passages, entities, relations) for retrieval

``load_graph`` reads a finished build back without any LLM call. A view family
(:data:`~ace_lab.graph.bare.VIEWS`: ``openie-bare``) has no build of its own: it loads the
build of the family it is derived from and applies the view (same run dir, same indexes).
"""

from __future__ import annotations

import json
import re
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.config import DEFAULT_TIER, Settings, default_graphs_dir, load_settings
from ace_lab.data import CORPUS, Chunk, Slice, chunk_passages, load_slice
from ace_lab.data.userdir import corpus_folder
from ace_lab.graph.bare import VIEWS, as_family, view_source
from ace_lab.graph.build_log import build_log_summary, logged_run, read_build_log
from ace_lab.graph.compact import extraction_label
from ace_lab.graph.tables import GraphTables
from ace_lab.llm import LLM
from ace_lab.llm.replay import replaying

FAMILIES = ("hierarchical", "openie", "typed")
#: Every family ``load_graph`` reads: the built ones and their views.
GRAPH_FAMILIES = FAMILIES + tuple(VIEWS)


def _builder(family: str) -> Callable[..., GraphTables]:
    if family == "hierarchical":
        from ace_lab.graph.hierarchy import build_hierarchical

        return build_hierarchical
    if family == "openie":
        from ace_lab.graph.openie import build_openie

        return build_openie
    if family == "typed":
        from ace_lab.graph.typed import build_typed

        return build_typed
    if family in VIEWS:
        raise ValueError(f"{family} is a view of the {VIEWS[family]} build: build {VIEWS[family]}")
    raise ValueError(f"unknown graph family {family!r}; choose from {FAMILIES}")


def extraction_config(family: str, extraction: str) -> Any:
    """The default builder config of ``family`` with ``extraction`` (``json`` or ``compact``:
    :mod:`ace_lab.graph.compact`), for ``build_graph(..., config=...)``."""
    if family == "hierarchical":
        from ace_lab.graph.hierarchy import HierarchyConfig as Config
    elif family == "openie":
        from ace_lab.graph.openie import OpenIEConfig as Config
    elif family == "typed":
        from ace_lab.graph.typed import TypedConfig as Config
    else:
        raise ValueError(f"unknown graph family {family!r}; choose from {FAMILIES}")
    return Config(extraction=extraction)


def model_label(model: str) -> str:
    """A folder-safe name for the model that built a graph (local tier or endpoint model)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model)


def settings_model(settings: Settings) -> str:
    """The model a build with ``settings`` uses: the local tier, or the endpoint's model."""
    return settings.llm.tier if settings.llm.is_local else str(settings.llm.model)


def run_dir(settings: Settings, slice_id: str, family: str, model: str) -> Path:
    return graphs_root(settings, slice_id) / slice_id / family / model


def graphs_root(settings: Settings, slice_id: str) -> Path:
    """Where the graphs of ``slice_id`` live: ``settings.graphs_dir``, except that a registered
    user corpus keeps its graphs in its own folder (``<corpus>/graphs``) while ``graphs_dir`` is
    the repository default, so indexing your documents never writes into the repository."""
    if Path(settings.graphs_dir) == default_graphs_dir():
        folder = corpus_folder(slice_id)
        if folder is not None:
            return folder / "graphs"
    return Path(settings.graphs_dir)


def slice_chunks(
    dataset: str, n: int, seed: int = 0, max_tokens: int = 600, overlap: int = 100
) -> tuple[Slice, list[Chunk]]:
    sl = load_slice(dataset, n, seed=seed)
    return sl, chunk_passages(sl.passages, max_tokens=max_tokens, overlap=overlap)


def build_graph(
    dataset: str,
    n: int,
    family: str,
    *,
    seed: int = 0,
    settings: Settings | None = None,
    llm: LLM | None = None,
    progress: bool = True,
    with_index: bool = True,
    **builder_options: Any,
) -> tuple[GraphTables, Path]:
    """Build (or resume) one family's graph for a slice; return the tables and the run dir."""
    settings = settings or load_settings()
    llm = llm or LLM(settings)
    sl, chunks = slice_chunks(dataset, n, seed)
    extraction = getattr(builder_options.get("config"), "extraction", "json")
    out = run_dir(
        settings, sl.slice_id, family, extraction_label(model_label(llm.model), extraction)
    )
    out.mkdir(parents=True, exist_ok=True)
    command = f"ace-lab build --dataset {dataset} --n {n} --family {family} --seed {seed}"
    command += f" --extraction {extraction}" if extraction != "json" else ""
    if sl.setting == CORPUS:  # a user corpus is built whole: no slice size or seed
        command = f"ace-lab build --dataset {dataset} --family {family}"
    if settings.llm.is_local:
        command += f" --model {settings.llm.tier}"
    meta = {
        "dataset": dataset,
        "slice_id": sl.slice_id,
        "questions": len(sl.questions),
        "passages": len(sl.passages),
        "chunks": len(chunks),
        "model": llm.model,
        "model_identity": llm.model_identity,
        "extraction": extraction,  # its folder's label says so too (graph.compact)
        "regenerate": command,
    }
    start = time.perf_counter()
    calls_before = len(llm.ledger.calls)
    # The responses this build uses are archived with it (a rebuild replays them); an
    # interrupted build keeps what it paid for, so it resumes from the archive on any clone.
    # Every run is logged, also one that is interrupted: a build spanning sessions sums them.
    with logged_run(out, llm), replaying(llm, out / "llm_responses.jsonl", keep_on_error=True):
        tables = _builder(family)(chunks, llm, out, meta=meta, progress=progress, **builder_options)
    elapsed = round(time.perf_counter() - start, 1)
    made_calls = any(not c.cache_hit for c in llm.ledger.calls[calls_before:])
    previous = _previous_meta(out / "tables")
    # A rebuild that only replays records and cached responses keeps the recorded build time
    # of the run that did the LLM work; its own (short) time is ``last_run_wall_s``.
    tables.meta["build_wall_s"] = (
        elapsed if made_calls or "build_wall_s" not in previous else previous["build_wall_s"]
    )
    tables.meta["last_run_wall_s"] = elapsed
    tables.meta["build_log"] = build_log_summary(read_build_log(out))
    tables.save(out / "tables")
    if with_index:
        from ace_lab.graph.seeds import build_seed_indexes

        build_seed_indexes(tables).save(out / "index")
    return tables, out


def _previous_meta(tables_dir: Path) -> dict[str, Any]:
    path = tables_dir / "meta.json"
    try:
        return json.loads(path.read_text()) if path.is_file() else {}
    except (OSError, json.JSONDecodeError):
        return {}


def load_graph(
    dataset: str,
    n: int,
    family: str,
    model: str = DEFAULT_TIER,
    seed: int = 0,
    settings: Settings | None = None,
) -> tuple[GraphTables, Path]:
    """A finished build's tables and run dir (no LLM call); a clear error if it is missing.
    A view family reads the build it is derived from (whose run dir is returned)."""
    settings = settings or load_settings()
    sl = load_slice(dataset, n, seed=seed)
    built = view_source(family)
    out = run_dir(settings, sl.slice_id, built, model_label(model))
    if not (out / "tables" / "nodes.parquet").is_file():
        size = "" if sl.setting == CORPUS else f" --n {n}"
        hint = f"ace-lab build --dataset {dataset}{size} --family {built} --model {model}"
        raise FileNotFoundError(f"no {built} graph at {out}; build it with: {shlex.quote(hint)}")
    return as_family(family, GraphTables.load(out / "tables")), out


def load_or_build(
    dataset: str,
    n: int,
    family: str,
    *,
    rebuild: bool = False,
    seed: int = 0,
    settings: Settings | None = None,
    progress: bool = True,
    llm: LLM | None = None,
) -> tuple[GraphTables, Path]:
    """The committed/finished graph if there is one (no LLM call), else build it (with ``llm``,
    e.g. one replaying a notebook's archive, else a new client for ``settings``).

    ``rebuild=True`` always runs the builder; it resumes from the per-chunk records and the
    LLM cache, so a rebuild of an unchanged slice makes no new model calls.
    """
    settings = settings or load_settings()
    model = settings_model(settings)
    if not rebuild:
        try:
            return load_graph(dataset, n, family, model=model, seed=seed, settings=settings)
        except FileNotFoundError:
            pass
    built = view_source(family)
    tables, out = build_graph(
        dataset, n, built, seed=seed, settings=settings, llm=llm, progress=progress
    )
    return as_family(family, tables), out


def cost_frame(tables: GraphTables) -> pd.DataFrame:
    """The build's LLM cost per stage (calls and tokens per chunk), one row per stage."""
    cost = tables.meta.get("cost", [])
    if isinstance(cost, dict):  # {"stage": ..., ...} or {stage name: {...}, total: x}
        stages = [v for v in cost.values() if isinstance(v, dict)]
        cost = stages or [cost]
    return pd.DataFrame(cost)
