"""Shared fixtures: isolated settings and a scripted OpenAI-shaped client for control-flow tests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ace_lab.config import Settings, load_settings


class ScriptedClient:
    """Stands in for ``openai.OpenAI`` in unit tests of control flow (never for results).

    ``script`` items are returned in order: a string is the completion text, an exception is
    raised, a callable gets the request kwargs and returns either. ``delay_s`` simulates a slow
    server so concurrency can be observed.
    """

    def __init__(
        self,
        script: list[Any] | Callable[[dict], Any],
        delay_s: float = 0.0,
        server_cached_tokens: int = 0,
    ) -> None:
        self.script = script
        self.delay_s = delay_s
        self.server_cached_tokens = server_cached_tokens
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **kwargs: Any) -> Any:
        with self._lock:
            self.requests.append(kwargs)
            item = self.script(kwargs) if callable(self.script) else self.script.pop(0)
        if self.delay_s:
            time.sleep(self.delay_s)
        if isinstance(item, BaseException):
            raise item
        message = SimpleNamespace(content=item)
        return SimpleNamespace(
            choices=[SimpleNamespace(message=message)],
            usage=SimpleNamespace(
                prompt_tokens=11,
                completion_tokens=len(str(item).split()),
                prompt_tokens_details=SimpleNamespace(cached_tokens=self.server_cached_tokens),
            ),
        )


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


# ------------------------------------------------------------------ toy graph + scripted ACE
@pytest.fixture(scope="session")
def toy_graph(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The hierarchical toy graph, built once with the scripted extraction model."""
    from ace_lab.data import chunk_passages, load_dataset
    from ace_lab.graph.hierarchy import build_hierarchical
    from ace_lab.graph.index import build_seed_indexes
    from ace_lab.llm import LLM
    from ace_lab.methods.retrieval_graph import RetrievalGraph
    from tests.test_hierarchy import CONFIG, _reply

    base = Settings(cache_dir=tmp_path_factory.mktemp("cache"))
    llm = LLM(base, client=ScriptedClient(_reply))
    chunks = chunk_passages(load_dataset("toy").passages)
    tables = build_hierarchical(chunks, llm, tmp_path_factory.mktemp("run"), CONFIG, progress=False)
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="toy")


def ace_reply(kwargs: dict) -> str:
    """Plays the model for ACE: router POINT, a two-query plan, a tagged answer."""
    system = kwargs["messages"][0]["content"]
    if "Strategic Router" in system:
        return '{"topology": "POINT"}'
    if "Retrieval Planner" in system or "rewrite a query" in system:
        return json.dumps(
            {
                "analysis": "the museum's city is missing",
                "queries": [
                    {"query": "tidal lantern museum", "mode": "hi_local", "goal": "empowerment"},
                    {"query": "Brinemouth museums", "mode": "hi_global", "goal": "diversity"},
                ],
            }
        )
    return "Reasoning: it is kept there.\nResult: [FINAL_ANSWER] Brinemouth [/FINAL_ANSWER]"
