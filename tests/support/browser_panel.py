"""The what-if panel over the toy graph with scripted models, for the browser test's notebook.

``python -c "from tests.support.browser_panel import panel; display(panel())"`` in a kernel whose
working directory is anywhere: the repository root is put on ``sys.path`` by the notebook cell.
The graph is built with the scripted extraction model and answered by the scripted MOSAIC model
(``tests.support``), in a fresh cache under ``ACE_LAB_CACHE_DIR``, so nothing reaches a model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ace_lab.config import Settings, load_settings
from ace_lab.data import chunk_passages, load_dataset
from ace_lab.data.records import Question
from ace_lab.graph.hierarchy import build_hierarchical
from ace_lab.graph.seeds import build_seed_indexes
from ace_lab.llm import LLM
from ace_lab.retrieval import RetrievalGraph
from ace_lab.widgets import WhatIf
from ace_lab.widgets import panel as what_if_panel
from tests.support.extraction import hierarchy_config, hierarchy_reply
from tests.support.replies import mosaic_reply
from tests.support.scripted import ScriptedClient

QUESTION = Question("q0", "Where is the tidal lantern kept?", "museum", (), (), None, "toy")
#: The setting the panel opens on; the test moves its depth slider from 3 to 2.
FIRST = "mosaic-budget-matched:12x3"


def toy_graph(settings: Settings, run: Path) -> RetrievalGraph:
    """The hierarchical toy graph built with the scripted extraction model."""
    llm = LLM(settings, client=ScriptedClient(hierarchy_reply))
    chunks = chunk_passages(load_dataset("toy").passages)
    tables = build_hierarchical(chunks, llm, run, hierarchy_config(), progress=False)
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="toy")


def panel() -> Any:
    """The explorer's widget, answered once under :data:`FIRST`."""
    settings = load_settings(tier="smollm135m")
    graph = toy_graph(settings, Path(settings.cache_dir) / "toy_run")
    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    explorer = WhatIf(QUESTION, lambda family: graph, llm, dataset="toy")
    return what_if_panel(explorer, FIRST)
