"""The questions and context texts of a stored GraphRAG-Bench study, for its judged metrics.

A results record (:func:`ace_lab.eval.studies.record.record`) keeps the *ids* of its final context
(``context_ids``), not their texts, and neither the gold evidence statements nor the full gold
answer. :class:`StudyContext` recovers both from what the study's ``manifest.json`` names
(data set, slice size and seed, the graph model of each method), without any LLM call:

* **Questions**: the study's slice, re-made from the data set (the same slice the run answered):
  gold answer, question type and ``evidence_statements`` per question id.
* **Context texts**, per record, from the first source that has them:

  1. ``context_texts`` (a list of strings) when the record holds them (source ``record``);
  2. the method's graph (its family from the registry, built by the method's graph model), each
     id through the evidence makers the methods themselves use
     (:class:`~ace_lab.retrieval.RetrievalGraph`): chunk → passage, community → report, other
     nodes → entity / summary, edges → relation, ``path:a|b|…`` → bridge path (source
     ``graph:<family>``);
  3. without that graph, the slice's chunks for passage ids, rendered ``title: text`` as the
     graph's passage evidence is (source ``slice``).

  An id no source knows (e.g. an ArcRAG result row, an evidence item a method made up on the
  fly) is left out and counted in ``missing``: the retrieval judges read the texts found, and
  the stored score says how many items it lacked. Texts recovered from a graph are the items'
  texts *now*; a graph rebuilt after the run could differ from what the method was given.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ace_lab.config import DEFAULT_TIER, Settings, load_settings
from ace_lab.data import Question, load_slice
from ace_lab.data.graphragbench import handles
from ace_lab.embed import Embedder
from ace_lab.eval.studies.study import read_manifest
from ace_lab.graph.build import model_label, run_dir
from ace_lab.graph.seeds import SeedIndexes
from ace_lab.graph.tables import GraphTables
from ace_lab.registry import graph_family
from ace_lab.retrieval import RetrievalGraph

log = logging.getLogger(__name__)

#: The graph model a study that names none was built with (the runner's default).
DEFAULT_GRAPH_MODEL = DEFAULT_TIER


@dataclass(frozen=True)
class Recovered:
    """A record's context texts, where they came from, and how many ids had no text."""

    texts: tuple[str, ...]
    source: str
    missing: int


class StudyContext:
    """A study's slice questions and the texts of its records' contexts (module docstring).

    Graphs are loaded at most once per family, on first need; use it from one thread.
    """

    def __init__(
        self, study: str, settings: Settings | None = None, embedder: Embedder | None = None
    ) -> None:
        self.settings = settings or load_settings()
        self.manifest = read_manifest(study, self.settings)
        dataset = str(self.manifest["dataset"])
        if not handles(dataset):
            raise ValueError(f"study {study!r} is on {dataset}, not a GraphRAG-Bench set")
        n, seed = int(self.manifest["n"]), int(self.manifest.get("seed", 0))
        sl = load_slice(dataset, n, seed=seed, data_dir=self.settings.data_dir)
        self.slice_id = str(self.manifest.get("slice_id") or sl.slice_id)
        self.questions: dict[str, Question] = {q.id: q for q in sl.questions}
        self.passages = {p.id: f"{p.title}: {p.text}" if p.title else p.text for p in sl.passages}
        self._embedder = embedder
        self._graphs: dict[tuple[str, str], RetrievalGraph | None] = {}

    def graph_model(self, method: str) -> str:
        entry = (self.manifest.get("methods") or {}).get(method) or {}
        return str(
            entry.get("graph_model") or self.manifest.get("graph_model") or DEFAULT_GRAPH_MODEL
        )

    def graph(self, method: str) -> tuple[str, RetrievalGraph | None]:
        """(family, its loaded graph or None when the method has no built graph here)."""
        try:
            family = graph_family(method)
        except (KeyError, ValueError):
            return "", None
        key = (family, self.graph_model(method))
        if key not in self._graphs:
            out = run_dir(self.settings, self.slice_id, family, model_label(key[1]))
            graph = None
            if (out / "tables" / "nodes.parquet").is_file():
                tables = GraphTables.load(out / "tables")
                # Only the evidence makers are used: no seed index, and the embedder is never
                # called (a stand-in is passed so no model is loaded for it).
                none = SeedIndexes(passages=None, entities=None, relations=None)
                graph = RetrievalGraph(
                    tables, none, name=f"{self.slice_id}/{family}", embedder=self._embedder
                )
            else:
                log.info("%s: no %s graph at %s; contexts from the slice", method, family, out)
            self._graphs[key] = graph
        return family, self._graphs[key]

    def texts(self, rec: Mapping[str, Any]) -> Recovered:
        """The texts of ``rec``'s context (module docstring), in context order."""
        stored = rec.get("context_texts")
        if isinstance(stored, list | tuple) and all(isinstance(t, str) for t in stored):
            return Recovered(tuple(stored), "record", 0)
        ids = rec.get("context_ids")
        ids = [str(i) for i in ids] if isinstance(ids, list | tuple) else []
        family, graph = self.graph(str(rec.get("method") or ""))
        found = [self._text(graph, i) for i in ids]
        source = f"graph:{family}" if graph is not None else "slice"
        texts = tuple(t for t in found if t is not None)
        return Recovered(texts, source, len(ids) - len(texts))

    def _text(self, graph: RetrievalGraph | None, item_id: str) -> str | None:
        text = evidence_text(graph, item_id) if graph is not None else None
        return text if text is not None else self.passages.get(item_id)


def evidence_text(graph: RetrievalGraph, item_id: str) -> str | None:
    """The text the graph's evidence maker gives ``item_id``; None when the graph lacks it."""
    if item_id.startswith("path:"):
        path = item_id.removeprefix("path:").split("|")
        try:
            return graph.path_evidence(path).text
        except KeyError:  # a node or hop this graph does not have
            return None
    if item_id in graph.edges:
        return graph.relation_evidence(item_id).text
    node = graph.nodes.get(item_id)
    if node is None:
        return None
    if node.label == "Chunk":
        return graph.passage_evidence(item_id).text
    if node.label == "Community":
        return graph.report_evidence(item_id).text
    return graph.entity_evidence(item_id).text
