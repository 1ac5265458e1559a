"""Fixtures used across the test folders (isolated settings, the toy graphs, one MiniLM) and the
hooks that give every run a fresh user data folder. Helpers are in :mod:`tests.support`."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ace_lab.config import Settings, load_settings
from tests.support.datasets import TOY_CORPUS
from tests.support.embedders import OneHotEmbedder
from tests.support.extraction import hierarchy_config, hierarchy_reply, openie_reply
from tests.support.graphs import build_typed_scripted, tiny_tables, toy_chunk_list
from tests.support.scripted import ScriptedClient


def pytest_configure(config: pytest.Config) -> None:
    """Tests use a fresh user data folder: they never see or write the user's registered corpora
    (``ace-lab corpus add``); the benchmark sets ``ace-lab data fetch`` put there stay visible."""
    import tempfile

    from ace_lab.data.userdir import user_data_dir

    real = user_data_dir()
    isolated = Path(tempfile.mkdtemp(prefix="ace_lab_test_user_data_"))
    if (real / "benchmarks").is_dir():
        (isolated / "benchmarks").symlink_to(real / "benchmarks")
    config._ace_lab_user_data = isolated  # type: ignore[attr-defined]
    os.environ["ACE_LAB_USER_DATA"] = str(isolated)


def pytest_unconfigure(config: pytest.Config) -> None:
    import shutil

    isolated = getattr(config, "_ace_lab_user_data", None)
    if isolated is not None:
        shutil.rmtree(isolated, ignore_errors=True)  # removes the link, never its target


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings for the local smoke tier whose caches live in a fresh temporary directory."""
    base = load_settings()
    return Settings(
        data_dir=base.data_dir,
        cache_dir=tmp_path / "cache",
        model_dir=base.model_dir,
        results_dir=tmp_path / "results",
        figures_dir=tmp_path / "figures",
        graphs_dir=tmp_path / "graphs",
        llm=replace(base.llm, base_url=None, model=None, tier="smollm135m"),
        embed=base.embed,
    )


# ------------------------------------------------------------------ toy corpus
@pytest.fixture(scope="session")
def toy_chunks() -> list[Any]:
    """Every chunk of the toy corpus."""
    return toy_chunk_list()


@pytest.fixture(scope="session")
def toy_records() -> list[dict[str, str]]:
    return json.loads(TOY_CORPUS.read_text())


# ------------------------------------------------------------------ graphs: scripted builds
@pytest.fixture(scope="session")
def toy_graph(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The hierarchical toy graph, built once with the scripted extraction model."""
    from ace_lab.data import chunk_passages, load_dataset
    from ace_lab.graph.hierarchy import build_hierarchical
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.llm import LLM
    from ace_lab.retrieval import RetrievalGraph

    base = Settings(cache_dir=tmp_path_factory.mktemp("cache"))
    llm = LLM(base, client=ScriptedClient(hierarchy_reply))
    chunks = chunk_passages(load_dataset("toy").passages)
    run = tmp_path_factory.mktemp("run")
    tables = build_hierarchical(chunks, llm, run, hierarchy_config(), progress=False)
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="toy")


@pytest.fixture(scope="session")
def openie_graph(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The OpenIE toy graph of the first three toy chunks (scripted extraction, one-hot
    synonyms so that no synonym edges appear; real MiniLM seed indexes)."""
    from ace_lab.graph.openie import OpenIEConfig, build_openie
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.llm import LLM
    from ace_lab.retrieval import RetrievalGraph

    base = Settings(cache_dir=tmp_path_factory.mktemp("cache"))
    llm = LLM(base, client=ScriptedClient(openie_reply))
    tables = build_openie(
        toy_chunk_list()[:3],
        llm,
        tmp_path_factory.mktemp("run"),
        OpenIEConfig(),
        progress=False,
        embedder=OneHotEmbedder(),
        embed_cache=False,
    )
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="openie")


@pytest.fixture(scope="session")
def typed_graph(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The typed toy graph of the first three toy chunks (scripted extraction), as a
    RetrievalGraph with real MiniLM seed indexes."""
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.retrieval import RetrievalGraph

    base = Settings(cache_dir=tmp_path_factory.mktemp("cache"))
    tables, _ = build_typed_scripted(base, tmp_path_factory.mktemp("run"), toy_chunk_list()[:3])
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="typed")


@pytest.fixture(scope="session")
def tiny_graph() -> Any:
    """4 entities, 3 chunks: a chain Alpha–Beta–Gamma, Delta alone with its own chunk."""
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.retrieval import RetrievalGraph

    tables = tiny_tables()
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="tiny")


# ------------------------------------------------------------------ embeddings
@pytest.fixture(scope="session")
def minilm() -> Any:
    """One real offline MiniLM for the whole session: loading it is the slow part."""
    from ace_lab.embed import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@pytest.fixture(scope="session")
def vector_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One embedding cache for the index tests, so each text is encoded once per session."""
    from ace_lab.embed import VectorCache

    return VectorCache(tmp_path_factory.mktemp("index-cache") / "embeddings.sqlite")
