"""bench/arc_overhead.py: which methods count as ArcRAG, their family, the time and size columns
computed from records, and graph sizes read from a graph archive."""

from __future__ import annotations

import json
import math

import pytest

from tests.support.benches import load_bench

bench = load_bench("arc_overhead")


def _record(method: str, cypher_ms: float, executed: int, interface: int, **extra) -> dict:
    stats = {"cypher_ms": cypher_ms, "cypher_executed": executed, "interface_size": interface}
    return {"method": method, "stats": stats, "wall_s": 10.0, "llm_s": 8.0} | extra


@pytest.mark.parametrize(
    ("method", "arc", "family"),
    [
        ("arcrag", True, "typed"),
        ("arcrag:r1p1@openie", True, "openie"),
        ("arcrag-generator@typed", True, "typed"),
        ("direct-cypher", True, "typed"),
        ("ace-full", False, None),
        ("hirag", False, None),
    ],
)
def test_arc_methods_and_their_family(method, arc, family):
    assert bench.is_arc_method(method) is arc
    if arc:
        assert bench.family_of(method) == family


def test_llm_seconds_prefers_the_cold_cache_time():
    # cold 30 s, of which 2 s outside the LLM (wall 10 − llm 8): 28 s of model time
    assert bench.llm_seconds({"cold_wall_s": 30.0, "wall_s": 10.0, "llm_s": 8.0}) == 28.0
    assert bench.llm_seconds({"cold_wall_s": None, "llm_s": 8.0}) == 8.0


def test_rows_per_method_with_time_share_and_interface_per_graph_size():
    records = [
        _record("arcrag", 2000.0, 10, 12),
        _record("arcrag", 4000.0, 20, 8),
        _record("arcrag@openie", 500.0, 5, 30),
        _record("hirag", 0.0, 0, 0),  # not ArcRAG: ignored
        {"method": "arcrag", "stats": None},  # a record without stats (error): ignored
    ]
    sizes = {"typed": (1000, 3000), "openie": (4000, 9000)}
    rows = {r["method"]: r for r in bench.overhead_rows("s", records, sizes.get)}
    assert set(rows) == {"arcrag", "arcrag@openie"}
    typed = rows["arcrag"]
    assert typed["n"] == 2
    assert typed["cypher_per_q"] == 15
    assert typed["cypher_s_per_q"] == 3.0
    assert typed["cypher_ms_median_query"] == 200.0
    assert math.isclose(typed["cypher_share"], 6.0 / (6.0 + 16.0))
    assert typed["interface_mean"] == 10 and typed["interface_max"] == 12
    assert typed["graph_nodes"] == 1000 and typed["interface_per_1k_nodes"] == 10.0
    assert rows["arcrag@openie"]["interface_per_1k_nodes"] == 7.5


def test_unknown_graph_leaves_size_empty():
    (row,) = bench.overhead_rows("s", [_record("arcrag", 1.0, 1, 4)], lambda family: None)
    assert row["graph_nodes"] is None and row["interface_per_1k_nodes"] is None


def test_table_reads_studies_and_archives(tmp_path):
    from ace_lab.graph.tables import GraphTables

    study = tmp_path / "results" / "mini"
    study.mkdir(parents=True)
    (study / "manifest.json").write_text(json.dumps({"slice_id": "toy-n8-s0"}))
    lines = [json.dumps(_record("arcrag", 100.0, 2, 5)), json.dumps(_record("arcrag", 300, 2, 7))]
    (study / "arcrag.jsonl").write_text("\n".join(lines) + "\n")
    (study / "hirag.jsonl").write_text(json.dumps({"method": "hirag"}) + "\n")
    # a budget and a family in the name: the file name is the safe form, the record says it
    (study / "arcrag_r1p3_openie.jsonl").write_text(
        json.dumps(_record("arcrag:r1p3@openie", 50.0, 1, 4)) + "\n"
    )
    (study / "arcrag.errors.jsonl").write_text(json.dumps({"method": "arcrag"}) + "\n")
    nodes = [{"id": f"n{i}", "name": f"N{i}", "label": "ENTITY"} for i in range(4)]
    edges = [{"id": "e0", "source": "n0", "target": "n1", "label": "REL"}]
    tables_dir = tmp_path / "graphs" / "toy-n8-s0" / "typed" / "m" / "tables"
    GraphTables.from_records(nodes, edges, {"family": "typed"}).save(tables_dir)

    table = bench.overhead_table(tmp_path / "results", tmp_path / "graphs")
    assert list(table["method"]) == ["arcrag", "arcrag:r1p3@openie"]
    assert table.loc[0, "graph_nodes"] == 4 and table.loc[0, "graph_edges"] == 1
    assert table.loc[0, "interface_mean"] == 6.0
    no_graphs = bench.overhead_table(tmp_path / "results", tmp_path / "none")
    assert no_graphs.loc[0, "graph_nodes"] is None
