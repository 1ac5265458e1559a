"""ace_lab.arc.generate's neighbourhood-scan template runs from the anchors through the per-label
id index (no scan of every node) and returns the rows the scan returned, in the same order, on
the committed typed graph and a synthetic one; the trace and the refine prompt still show the
template's text."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ace_lab.arc.budget import Budget
from ace_lab.arc.execute import query_log
from ace_lab.arc.generate import anchor_labels, run_subplan, scan_cypher, scan_seek
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.plan import Subplan
from ace_lab.arc.schema import schema_for
from ace_lab.arc.steps import ArcAnchor
from ace_lab.graph.seeds import build_seed_indexes
from ace_lab.llm import LLM
from ace_lab.retrieval import RetrievalGraph
from ace_lab.trace import Trace
from bench.synthetic_graph import HashEmbedder, typed
from tests.support.arc_committed import committed_graph
from tests.support.replies import arc_reply
from tests.support.scripted import ScriptedClient

SAMPLES = 8
MAX_ROWS = 100


@pytest.fixture(scope="module", params=["committed", "synthetic"])
def graph(request: pytest.FixtureRequest) -> Any:
    if request.param == "committed":
        g = committed_graph("scan-seek/committed-typed")
    else:
        embedder = HashEmbedder()
        tables = typed(3000)
        indexes = build_seed_indexes(tables, embedder, progress=False, cache=False)
        g = RetrievalGraph(tables, indexes, name="scan-seek/synthetic", embedder=embedder)
    yield g
    g.close()


def _anchors(graph: Any, schema: Any, rnd: random.Random) -> tuple[ArcAnchor, ...]:
    keys = sorted(k for k, n in graph.nodes.items() if n.label != schema.passage_label)
    return tuple(
        ArcAnchor(k, graph.nodes[k].name, (graph.nodes[k].label,), "p") for k in rnd.sample(keys, 3)
    )


def _rows(graph: Any, cypher: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    return graph.store.read(cypher, params, timeout_ms=60_000, max_rows=5_000).rows


def test_the_template_seeks_the_anchors_and_returns_the_scans_rows_in_order(graph):
    schema, _ = schema_for(graph)
    passages = list(graph.indexes.get("passages").ids)
    rnd = random.Random(3)
    nonempty = 0
    for _ in range(SAMPLES):
        anchors = _anchors(graph, schema, rnd)
        keys = tuple(a.key for a in anchors)
        labels = anchor_labels(QueryInterface(anchors=anchors), keys)
        seek = scan_seek(schema, MAX_ROWS, labels)
        assert seek is not None and seek.startswith("CALL {")
        params = {"anchors": list(keys), "chunk_ids": rnd.sample(passages, len(passages) // 2)}
        plan = str(graph.store._graph.explain(seek, params))
        assert "All Node Scan" not in plan
        old = _rows(graph, scan_cypher(schema, MAX_ROWS), params)
        assert _rows(graph, seek, params) == old
        nonempty += bool(old)
    assert nonempty >= SAMPLES // 2  # the rows compared were not all empty


def test_unknown_or_unlabelled_anchors_keep_the_scan(graph):
    schema, _ = schema_for(graph)
    unlabelled = ArcAnchor("x", "x", (), "p")
    assert anchor_labels(QueryInterface(anchors=(unlabelled,)), ("x",)) == ()
    assert anchor_labels(QueryInterface(anchors=()), ("x",)) == ()
    assert scan_seek(schema, MAX_ROWS, ()) is None


def test_the_attempt_records_and_shows_the_templates_text(settings, graph):
    schema, _ = schema_for(graph)
    anchors = _anchors(graph, schema, random.Random(5))
    keys = tuple(a.key for a in anchors)
    subplan = Subplan(0, "everything around the anchors", (), True, keys)
    client = ScriptedClient(arc_reply(refine={"cypher": ""}))
    trace = Trace()
    with trace.activate(), trace.step("cypher") as step, query_log():
        run = run_subplan(
            LLM(settings, client=client),
            graph.store,
            schema,
            QueryInterface(anchors=anchors),
            subplan,
            "entity",
            "Who?",
            (),
            Budget(retries=2),
        )
    first = run.attempts[0]
    assert first.templated and first.record.text == scan_cypher(schema, Budget().max_rows)
    assert first.record.executed.startswith("CALL {") and step.queries[0] == first.record.text
    assert first.recorded().query.text == first.record.text
    assert first.reason == "returned no rows" and len(run.attempts) == 2  # no passage: no row
    history = client.requests[-1]["messages"][1]["content"]  # the refine prompt's
    assert f"Attempt 1:\n{first.record.text}\n" in history and "CALL {" not in history
