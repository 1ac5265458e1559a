"""ace_lab.arc.report's tables and views: notebook 04's tables and graph views, read from the
trace's payloads and the answer's details alone — synthetic traces for the shapes and edge
cases, a scripted ArcRAG run on the toy graphs for the real layout, the witness replayed from its
record, and the stepper's HTML for every payload type a run records."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ace_lab.arc import report
from ace_lab.arc.report import tables, views
from ace_lab.arc.steps import (
    ArcAnchor,
    ArcDetails,
    ArcGeneration,
    ArcPass,
    ArcPlan,
    ArcRetrieval,
    CypherAttempt,
    CypherExecution,
    CypherQuery,
    InterfaceBuilt,
    PlannedSubplan,
    SchemaView,
    SufficiencyCheck,
)
from ace_lab.arc.witness import replay_recorded
from ace_lab.evidence import Answer, Context, Trace
from ace_lab.llm import LLM
from ace_lab.registry import make_method
from ace_lab.steps import StopDecision
from ace_lab.trace import Step
from tests.support.replies import ARC_QUESTION, arc_reply
from tests.support.scripted import ScriptedClient

EVIL = "<script>alert(1)</script>"
TYPED = {
    "labels": {"Person": 2, "City": 1},
    "rel_types": {"BORN_IN": 1},
    "key": "id",
    "text_key": "name",
    "relation_property": None,
    "provenance_property": "chunks",
    "passage_label": None,
    "chunk_backed": True,
    "property_keys": ["id", "name"],
    "signatures": [["Person", "BORN_IN", "City", 1]],
}
OPENIE = TYPED | {
    "labels": {"Entity": 3},
    "rel_types": {"RELATION": 2},
    "relation_property": "predicate",
    "provenance_property": None,
    "chunk_backed": False,
}
WORKS = ArcAnchor("w", "Lantern Works", ("Org",), "Lantern Works")


def attempt(text, rows, ok, reason, refined, error=None):
    query = CypherQuery(text, {}, ({"x": 1},) * rows, rows, ms=1.25, error=error)
    return CypherAttempt(query, ok, reason, refined)


def element(kind, key, text, p, s, **extra):
    base = {
        "kind": kind,
        "key": key,
        "text": text,
        "pass_": p,
        "subplan": s,
        "query": f"p{p}.s{s}",
        "labels": [],
        "source": None,
        "target": None,
        "provenance": [],
        "seen_in": [],
    }
    return base | extra


def _elements(answer: str) -> list[dict]:
    return [
        element("node", "w", "Lantern Works", 1, 0),
        element("node", "i", "Ilse Marrin", 1, 0),
        element("node", "k", answer, 2, 1),
        element("node", "z", "Elsewhere", 1, 0),
        element(
            "edge",
            "e1",
            "Lantern Works -[FOUNDED_BY]-> Ilse Marrin",
            1,
            0,
            source="w",
            target="i",
            provenance=["c1"],
        ),
        element(
            "edge",
            "e2",
            f"Ilse Marrin -[BORN_IN]-> {answer}",
            2,
            1,
            source="i",
            target="k",
            seen_in=["p2.s0"],
        ),
        element("edge", "e3", "Lantern Works -[NEAR]-> Elsewhere", 1, 0, source="w", target="z"),
        element("edge", "e4", "Nowhere -[OF]-> Void", 2, 1),
        element("row", "who=X", "who=X", 2, 1),
    ]


def _plan(p: int, query: str) -> ArcPlan:
    subplans = (
        PlannedSubplan(p, 0, "founder", ("FOUNDED_BY", "BORN_IN"), False, ("w",)),
        PlannedSubplan(p, 1, "scan", (), True, ("w",)),
    )
    return ArcPlan(p, query, "place", subplans, ("planner gave no neighbourhood scan: added",))


def synthetic(schema=TYPED, answer="Kesterholm") -> Answer:
    """A two-pass trace whose step names say nothing: the payloads carry pass and subplan."""
    trace = Trace()
    with trace.step("schema", kind="schema") as s:
        s.record(SchemaView(schema))
    with trace.step("retrieve", kind="retrieve") as s:
        hits = {"Lantern Works": (("c1", 0.9), ("c2", 0.5)), "Zorblax": (("c3", 0.1),)}
        phrases = ("Lantern Works", "Zorblax")
        s.record(
            ArcRetrieval(
                1, "q1", phrases, "passages", hits, (WORKS,), ("Zorblax",), ("c1", "c2", "c3")
            )
        )
    with trace.step("explore", kind="explore") as s:
        s.record(
            InterfaceBuilt(
                1,
                anchors=(WORKS,),
                descriptors=("FOUNDED_BY", "BORN_IN", "LOCATED_IN"),
                signatures=(("Org", "FOUNDED_BY", "Person", 2), ("City", "LOCATED_IN", "X", 3)),
                alias_groups=(("Ilse Marrin", "I. Marrin", "Marrin"),),
                paths=(
                    "Lantern Works -[FOUNDED_BY]-> Ilse Marrin",
                    f"Ilse Marrin -[BORN_IN]-> {EVIL}",
                    "not a path",
                ),
            )
        )
    with trace.step("cypher", kind="cypher") as s:
        first = attempt("MATCH (a) RETURN a.zz", 0, False, "returned no rows", False)
        second = attempt("MATCH (a)-[r]->(b) RETURN a, r, b", 2, True, "acceptable", True)
        s.record(CypherExecution(1, 0, "founder", (first, second), True, 3))
    with trace.step("cypher", kind="cypher") as s:
        bad = attempt("MATCH (", 0, False, "did not run: x", False, "x")
        s.record(CypherExecution(2, 1, "scan", (bad,)))
    passes = (ArcPass(1, "q1", _plan(1, "q1")), ArcPass(2, "q2", _plan(2, "q2")))
    witness = {"queries": [], "elements": _elements(answer)}
    stats = {"passes_used": 2, "cypher_queries": 3}
    details = ArcDetails("r3p6", "full", stats, passes, witness)
    return Answer(answer, Context([]), trace, method="arcrag", details=details)


def test_schema_side_by_side_compares_the_families_facet_by_facet():
    table = tables.schema_side_by_side(
        {"typed": synthetic().trace, "openie": synthetic(OPENIE).trace}
    )
    assert list(table.columns) == ["typed", "openie"]
    assert table.loc["relations live in", "typed"] == "relationship types"
    assert table.loc["relations live in", "openie"] == "edge property predicate"
    assert table.loc["chunk-backed"].tolist() == ["yes", "no"]
    assert table.loc["node labels (count)", "typed"] == "Person (2), City (1)"
    assert table.loc["patterns", "typed"].startswith("1: (Person)-[BORN_IN]->(City) ×1")


def test_retrieval_marks_gaps_and_the_chunk_scope():
    trace = synthetic().trace
    table = tables.retrieval_table(trace).set_index("phrase")
    assert table.loc["Zorblax", "gap"] and not table.loc["Lantern Works", "gap"]
    assert table.loc["Lantern Works", "anchors"] == "Lantern Works [w]"
    assert table.loc["Lantern Works", "hits"] == 2 and table.loc["Zorblax", "anchors"] == "—"
    scope = tables.chunk_scope(trace)
    assert scope.loc[0, "chunk ids"] == 3 and scope.loc[0, "scope"] == "c1, c2, c3"


def test_attempts_say_why_each_was_or_was_not_acceptable():
    table = tables.attempts_table(synthetic().trace)
    assert table[["pass", "subplan", "attempt"]].values.tolist() == [
        [1, 0, 1],
        [1, 0, 2],
        [2, 1, 1],
    ]
    assert table["refined"].tolist() == [False, True, False]
    assert table["acceptable"].tolist() == [False, True, False]
    assert table.loc[0, "why"] == "returned no rows" and table.loc[2, "error"] == "x"
    assert table.loc[1, "why"] == tables.ACCEPTED_WHY and table.loc[1, "rows"] == 2


def test_plan_table_lists_every_subplan_of_every_pass():
    table = tables.plan_table(synthetic())
    assert len(table) == 4 and table["pass"].tolist() == [1, 1, 2, 2]
    assert table["kind"].tolist() == ["traversal", "open scan"] * 2
    assert table.loc[0, "hops"] == "FOUNDED_BY → BORN_IN" and table.loc[1, "hops"] == "(any)"


def test_interface_graph_shows_anchors_paths_aliases_and_unconfirmed_descriptors():
    interface = views.interface_of(synthetic().trace)
    g = views.interface_graph(interface)
    group = g["group"]
    assert group["n:Lantern Works"] == views.ANCHOR  # an anchor on a path stays an anchor
    assert group["n:Ilse Marrin"] == views.ENTITY and group["n:I. Marrin"] == views.ALIAS
    assert set(g["edges"]["type"]) == {"confirming path", "alias"}
    assert (g["edges"]["type"] == "confirming path").sum() == 2  # "not a path" is skipped
    assert len(g["alias_edges"]) == 2  # a group of three names is a chain of two edges
    # BORN_IN and FOUNDED_BY are on paths; LOCATED_IN is only a reported descriptor
    assert [n for n, k in group.items() if k == views.DESCRIPTOR] == ["d:LOCATED_IN"]
    assert "seen 3×" in g["nodes"].set_index("id").loc["d:LOCATED_IN", "description"]


def test_interface_without_exploration_is_the_retrieved_anchors():
    trace = synthetic().trace
    trace.steps = [s for s in trace.steps if not isinstance(s.payload, InterfaceBuilt)]
    interface = views.interface_of(trace)
    assert [a.key for a in interface.anchors] == ["w"] and not interface.paths
    assert views.interface_of(trace, pass_=2).anchors == ()  # pass 2 retrieved nothing


def test_parse_path_keeps_brackets_inside_names():
    assert views.parse_path("A [x] -[born in]-> B -[c") == ("A [x]", "born in", "B -[c")
    assert views.parse_path("no arrow") is None


def test_witness_graph_colours_by_pass_and_subplan_and_finds_the_answer_path():
    g = views.witness_graph(synthetic())
    assert g["group"]["w"] == "pass 1 · subplan 0" and g["group"]["k"] == "pass 2 · subplan 1"
    assert g["answer_nodes"] == {"k"}
    assert g["answer_path"] == ["w", "i", "k"]  # from the anchor, not via the distractor z
    ends = g["nodes"].set_index("id")
    assert ends.loc["end:e4:0", "name"] == "Nowhere" and ends.loc["end:e4:1", "name"] == "Void"
    assert ends.loc["row:who=X", "label"] == "Chunk"  # rows are drawn as boxes
    assert "again by p2.s0" in g["edges"].set_index("target").loc["k", "description"]


def test_without_a_reachable_anchor_only_the_answer_nodes_are_marked():
    ans = synthetic()
    ans.trace.steps = [s for s in ans.trace.steps if not isinstance(s.payload, ArcRetrieval)]
    assert views.witness_graph(ans)["answer_path"] == ["k"]
    assert views.witness_graph(replace(ans, text="nothing like it"))["answer_path"] == []


@pytest.mark.parametrize(
    ("name", "answer", "ok"),
    [
        ("Kesterholm", "kesterholm.", True),
        ("Kesterholm", "in Kesterholm, Norway", True),
        ("Kes", "Kesterholm", False),
        ("Al", "Al", True),
        ("", "x", False),
    ],
)
def test_names_answer(name, answer, ok):
    assert views.names_answer(name, answer) is ok


def test_views_are_saved_as_html_and_png_with_corpus_text_escaped(tmp_path):
    ans = synthetic(answer=EVIL)
    witness = views.witness_view(ans)
    red = {(e["from"], e["to"]) for e in witness.edges if e.get("width") == 4}
    assert red == {("w", "i"), ("i", "k")}
    files = report.save_witness(ans, "04_witness", tmp_path) + report.save_interface(
        ans.trace, "04_interface", tmp_path
    )
    assert sorted(p.name for p in files) == [
        "04_interface.html",
        "04_interface.png",
        "04_witness.html",
        "04_witness.png",
    ]
    for page in (tmp_path / "04_witness.html", tmp_path / "04_interface.html"):
        text = page.read_text()
        assert "alert(1)" in text and "<script>alert" not in text  # shown, never run


def scripted(settings, graph, name):
    client = ScriptedClient(arc_reply())
    return make_method(name, graph, LLM(settings, client=client)).answer(ARC_QUESTION)


def test_a_real_run_reads_back_and_its_witness_replays(settings, typed_graph, openie_graph):
    typed = scripted(settings, typed_graph, "arcrag:r1p1")
    openie = scripted(settings, openie_graph, "arcrag:r1p1@openie")
    side = tables.schema_side_by_side({"typed": typed.trace, "openie": openie.trace})
    assert side.loc["relations live in", "typed"] != side.loc["relations live in", "openie"]
    attempts = tables.attempts_table(typed.trace)
    written = attempts[~attempts["templated"]]
    assert len(written) == typed.details.stats["cypher_queries"] and attempts["acceptable"].any()
    assert attempts["templated"].sum() == typed.details.stats["templated_queries"] >= 1
    assert tables.retrieval_table(typed.trace)["gap"].tolist().count(True) == 1
    g = views.witness_graph(typed)
    assert len(g["nodes"]) >= typed.details.stats["witness_nodes"]
    assert set(g["group"].values()) <= {"pass 1 · subplan 0", "pass 1 · subplan 1"}
    assert views.interface_graph(views.interface_of(typed.trace))["group"]
    queries = typed.details.witness["queries"]
    results = replay_recorded(queries, typed_graph.store)
    assert results and all(r.same for r in results)
    tampered = [q | {"digest": "0"} for q in queries]
    replayed = tables.replay_table(replay_recorded(tampered, typed_graph.store))
    assert not replayed["same rows"].any() and (replayed["rows now"] > 0).all()
    both = tables.family_comparison({"typed": typed, "openie": openie}, gold=["Kesterholm"])
    assert both.loc["answer"].tolist() == ["Kesterholm"] * 2
    assert both.loc["cypher_queries", "typed"] == typed.details.stats["cypher_queries"]
    assert both.loc["context_from_model", "typed"] == typed.details.stats["context_from_model"]


def test_every_step_of_a_run_has_an_escaped_stepper_view(settings, typed_graph):
    follow = {"sufficient": False, "follow_up": EVIL}
    client = ScriptedClient(arc_reply(sufficient=follow))
    answer = make_method("arcrag:r1p2", typed_graph, LLM(settings, client=client)).answer(
        ARC_QUESTION
    )
    shown = set()
    for step in answer.trace.steps:
        view = report.STEP_VIEWS.get(type(step.payload))
        if isinstance(step.payload, StopDecision):
            assert view is None  # the stepper's heading line says it all
            continue
        html = view(step)
        assert html and "<script>" not in html
        shown.add(type(step.payload))
    assert shown == set(report.STEP_VIEWS)  # a run exercises every view
    judged = next(s for s in answer.trace.steps if isinstance(s.payload, SufficiencyCheck))
    assert "&lt;script&gt;" in report.STEP_VIEWS[SufficiencyCheck](judged)


def test_the_answer_view_says_where_each_context_item_came_from():
    def shown(**fields) -> str:
        payload = ArcGeneration(EVIL, EVIL, "task", "qa", 1, **fields)
        return report.STEP_VIEWS[ArcGeneration](Step("generate:p1", payload=payload))

    html = shown(context_ids=("c1", "c2"), sources=("model", "template"))
    assert "template" in html and "c2" in html and "<script>" not in html
    assert "context: c1" in shown(context_ids=("c1",))  # recorded before the sources were kept
    assert "(empty)" in shown()
