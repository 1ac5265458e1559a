"""ace_lab.arc.generate: Acceptable decides, Refine repairs within the retry budget; empty
Cypher, write attempts, unbounded paths and timeouts are failed attempts, never exceptions."""

from __future__ import annotations

import pytest

from ace_lab.arc.budget import Budget
from ace_lab.arc.execute import QueryRecord, query_log
from ace_lab.arc.generate import acceptable, run_subplan, scan_cypher
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.plan import Subplan
from ace_lab.arc.schema import StoreSchema, schema_for
from ace_lab.arc.steps import ArcAnchor
from ace_lab.graph.store import QueryTimeout
from ace_lab.llm import LLM
from ace_lab.trace import Trace
from tests.support.replies import arc_prompt, arc_reply
from tests.support.scripted import ScriptedClient

SCHEMA = StoreSchema(labels=(), rel_types=(), property_keys=(), key="k", text_key="t")
TOY_CHUNKS = ("toy-01", "toy-02", "toy-03")
GOOD = "MATCH (a)-[r]->(b) WHERE a.id IN $anchors RETURN a, r, b"


@pytest.mark.parametrize(
    ("record", "answer_type", "ok", "why"),
    [
        (QueryRecord("q", {}, error="QueryTimeout: x"), "entity", False, "did not run"),
        (QueryRecord("q", {}, [{"n": 1}], truncated=True), "entity", False, "row cap"),
        (QueryRecord("q", {}, []), "entity", False, "no rows"),
        (QueryRecord("q", {}, [{"n": None}]), "entity", False, "no values"),
        (QueryRecord("q", {}, [{"n": "Paris"}]), "date", False, "answer type"),
        (QueryRecord("q", {}, [{"n": "May 1889"}]), "date", True, "acceptable"),
        (
            QueryRecord("q", {}, [{"n": {"_labels": ["X"], "k": "1", "t": "Kes"}}]),
            "entity",
            True,
            "acceptable",
        ),
    ],
)
def test_acceptable(record, answer_type, ok, why):
    verdict, reason = acceptable(record, answer_type, SCHEMA)
    assert verdict is ok and why in reason


def setup(graph):
    schema, _ = schema_for(graph)
    iface = QueryInterface(anchors=(ArcAnchor("ent:ilse marrin", "Ilse Marrin", ("Person",), "x"),))
    return schema, iface, Subplan(0, "birthplace", ("born",), False, ("ent:ilse marrin",))


def run(settings, graph, budget, direct=False, **overrides):
    client = ScriptedClient(arc_reply(**overrides))
    schema, iface, sp = setup(graph)
    trace = Trace()
    with trace.activate(), trace.step("cypher") as step, query_log() as log:
        step.log = log  # what the step ran, for the assertions
        result = run_subplan(
            LLM(settings, client=client),
            graph.store,
            schema,
            iface,
            sp,
            "entity",
            "Where?",
            ("toy-01",),
            budget,
            direct=direct,
        )
    return result, [arc_prompt(k) for k in client.requests], step


@pytest.mark.parametrize(
    "bad",
    [
        {"cypher": ""},  # empty Cypher
        "not json at all",  # malformed output: the empty default
        {"cypher": "MATCH (n) DETACH DELETE n"},  # a write attempt
        {"cypher": "MATCH (a) WHERE a.id = 'nobody' RETURN a"},  # runs, returns nothing
    ],
)
def test_refine_is_bounded_by_the_retry_budget(settings, typed_graph, bad):
    result, calls, step = run(settings, typed_graph, Budget(retries=3), compile=bad, refine=bad)
    assert len(result.attempts) == 3 and result.accepted is None
    assert [a.refined for a in result.attempts] == [False, True, True]
    assert calls.count("compile") in (1, 3) and "refine" in calls  # 3: JSON retries
    assert len(step.log) == 3  # every attempt ran (or was refused) and was logged


def test_a_refinement_that_works_stops_the_loop(settings, typed_graph):
    result, calls, _ = run(
        settings,
        typed_graph,
        Budget(retries=5),
        compile={"cypher": "MATCH (n) SET n.x = 1 RETURN n"},
        refine={"cypher": GOOD},
    )
    assert [a.acceptable for a in result.attempts] == [False, True]
    assert "WriteQueryError" in result.attempts[0].reason
    assert result.accepted.params == {"anchors": ["ent:ilse marrin"], "chunk_ids": ["toy-01"]}
    assert calls == ["compile", "refine"]


def test_refine_sees_the_failed_attempts(settings, typed_graph):
    client = ScriptedClient(arc_reply(compile={"cypher": "MATCH (a) WHERE a.id = 'x' RETURN a"}))
    schema, iface, sp = setup(typed_graph)
    run_subplan(
        LLM(settings, client=client),
        typed_graph.store,
        schema,
        iface,
        sp,
        "entity",
        "Where?",
        (),
        Budget(retries=2),
    )
    refine = next(k for k in client.requests if arc_prompt(k) == "refine")
    text = refine["messages"][1]["content"]
    assert "Attempt 1:" in text and "returned no rows" in text and "a.id = 'x'" in text


def test_one_attempt_means_no_refinement(settings, typed_graph):
    result, calls, _ = run(settings, typed_graph, Budget(retries=1), compile={"cypher": ""})
    assert len(result.attempts) == 1 and "refine" not in calls


def test_unbounded_generated_paths_run_bounded(settings, typed_graph):
    query = "MATCH p=(a)-[*]-(b) WHERE a.id IN $anchors RETURN p"
    result, _, _ = run(
        settings, typed_graph, Budget(retries=1, max_rows=1000), compile={"cypher": query}
    )
    record = result.attempts[0].record
    assert record.rewritten and "*1..4" in record.text and record.ok


def test_direct_cypher_uses_its_own_prompt_without_parameters(settings, typed_graph):
    result, calls, _ = run(settings, typed_graph, Budget(retries=1), direct=True)
    assert calls == ["direct"] and result.attempts[0].record.params == {}


class TimeoutStore:
    def read(self, *a, **kw):
        raise QueryTimeout("Query timed out")


def test_a_query_that_times_out_is_refined(settings, typed_graph):
    client = ScriptedClient(arc_reply())
    schema, iface, sp = setup(typed_graph)
    result = run_subplan(
        LLM(settings, client=client),
        TimeoutStore(),
        schema,
        iface,
        sp,
        "entity",
        "Where?",
        (),
        Budget(retries=2, timeout_ms=10),
    )
    assert [a.reason.split(":")[0] for a in result.attempts] == ["did not run"] * 2
    assert all("QueryTimeout" in a.record.error for a in result.attempts)


def test_the_neighbourhood_scan_starts_from_the_schema_template(settings, typed_graph):
    client = ScriptedClient(arc_reply(refine={"cypher": GOOD}))
    schema, iface, _ = setup(typed_graph)
    scan = Subplan(0, "open neighbourhood scan", (), True, ("ent:ilse marrin",))
    result = run_subplan(
        LLM(settings, client=client),
        typed_graph.store,
        schema,
        iface,
        scan,
        "entity",
        "Where?",
        TOY_CHUNKS,
        Budget(retries=3, max_rows=7),
    )
    first = result.attempts[0]
    assert first.templated and first.record.text == scan_cypher(schema, 7)
    assert client.requests == []  # no model call: the scan has no predicate to compile
    assert first.acceptable and 0 < len(first.record.rows) <= 7
    names = {
        v.get(schema.key) for row in first.record.rows for v in row.values() if isinstance(v, dict)
    }
    assert "ent:ilse marrin" in names


def test_a_scan_without_the_answer_type_is_refined_by_the_model(settings, typed_graph):
    client = ScriptedClient(arc_reply(refine={"cypher": GOOD}))
    schema, iface, _ = setup(typed_graph)
    scan = Subplan(0, "open neighbourhood scan", (), True, ("ent:nobody",))
    result = run_subplan(
        LLM(settings, client=client),
        typed_graph.store,
        schema,
        iface,
        scan,
        "entity",
        "Where?",
        TOY_CHUNKS,
        Budget(retries=2),
    )
    assert [a.templated for a in result.attempts] == [True, False]
    assert result.attempts[0].reason == "returned no rows"
    assert [arc_prompt(k) for k in client.requests] == ["refine"]
