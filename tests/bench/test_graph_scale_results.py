"""bench/graph_scale_results.py and bench/record.py: a bench's table as committed results,
merged by graph size, and a printed log converted into the same files."""

from __future__ import annotations

import json

import pytest

from bench import record
from bench.graph_scale_results import main, parse_log, save

LOG = """\
    1,000 nodes: built in 0.4 s
  naive            1.5 ms/query
  arcrag          38.7 ms/query
  load embedded: 1,000 nodes, 2,852 edges via bulk in 0.1 s
  store embedded: {'load_s': 0.32, 'MB': 5.5, 'anchor_ms': 0.7}
  store falkordb://127.0.0.1:59771: {'load_s': 0.27, 'MB': 5.6, 'anchor_ms': 0.8}
   10,000 nodes: built in 3.2 s
  naive            1.5 ms/query
  arcrag         100.0 ms (one query, over --cap-s)
  store embedded: {'load_s': 0.9, 'MB': 15.7, 'anchor_ms': 0.8}
| ms per query (store rows: as named) | 1,000 nodes | 10,000 nodes |
"""


def test_a_log_gives_each_size_its_methods_and_stores():
    methods, stores = parse_log(LOG)
    assert methods == {1000: {"naive": 1.5, "arcrag": 38.7}, 10000: {"naive": 1.5, "arcrag": 100.0}}
    assert [(s["nodes"], s["store"], s["load_s"]) for s in stores] == [
        (1000, "embedded", 0.32),
        (1000, "falkordb", 0.27),
        (10000, "embedded", 0.9),
    ]
    with pytest.raises(ValueError, match=r"not a bench/graph_scale\.py log"):
        parse_log("hello")


def test_a_later_run_replaces_its_sizes_and_keeps_the_others(tmp_path):
    out = tmp_path / "bench" / "graph_scale"
    first = record.Run(command="python bench/graph_scale.py", note="first")
    stores = [{"nodes": n, "store": "embedded", "load_s": n / 1000} for n in (1000, 10000)]
    save(out, {1000: {"naive": 1.5}, 10000: {"naive": 2.0}}, stores, first.finish())
    again = record.Run(command="python bench/graph_scale.py --sizes 10000", note="second")
    store = {"nodes": 10000, "store": "embedded", "load_s": 7.0}
    table = save(out, {10000: {"naive": 3.0}}, [store], again.finish())
    assert "| naive | 1.500 | 3.000 |" in table
    assert "| embedded load_s | 1.000 | 7.000 |" in table
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["methods"] == {"1000": {"naive": 1.5}, "10000": {"naive": 3.0}}
    assert [(r["note"], r["columns"]) for r in data["runs"]] == [
        ("first", ["1,000 nodes"]),
        ("second", ["10,000 nodes"]),
    ]
    assert all(len(r["load_end"]) == 3 for r in data["runs"])
    md = out.with_suffix(".md").read_text().splitlines()
    assert md[0] == (
        "Regenerate with `python bench/graph_scale.py` and "
        "`python bench/graph_scale.py --sizes 10000`."
    )
    assert md[-1].startswith("- 10,000 nodes: `python bench/graph_scale.py --sizes 10000`, ")
    csv = out.with_suffix(".csv").read_text().splitlines()
    assert csv == [
        "nodes,name,quantity,value",
        "1000,naive,ms_per_query,1.5",
        "1000,embedded,load_s,1.0",
        "10000,naive,ms_per_query,3.0",
        "10000,embedded,load_s,7.0",
    ]


def test_a_converted_log_says_where_it_came_from(tmp_path):
    log = tmp_path / "run.log"
    log.write_text(LOG)
    out = tmp_path / "graph_scale"
    main(
        [
            str(log),
            "--out",
            str(out),
            "--command",
            "python bench/graph_scale.py",
            "--date",
            "2026-12-05 08:31 UTC",
            "--note",
            "load about 1",
        ]
    )
    (run,) = json.loads(out.with_suffix(".json").read_text())["runs"]
    assert run["date"] == "2026-12-05 08:31 UTC" and run["load_start"] == []
    assert run["note"].startswith("converted from the log of that command (run.log)")
    assert "load average" not in out.with_suffix(".md").read_text()  # not measured: not shown


def test_the_command_line_names_the_script_relative_to_the_repository():
    line = record.command_line([str(record.ROOT / "bench" / "graph_scale.py"), "--out", "a b"])
    assert line.endswith("bench/graph_scale.py --out 'a b'")
    assert str(record.ROOT) not in line.split()[1]


def _runs(data: dict) -> list[record.Run]:
    return [record.Run(**r) for r in data["runs"]]


def test_the_committed_bench_tables_are_what_their_records_make(tmp_path):
    """results/bench/*.md and .csv are remade from the rows and runs in their .json."""
    from ace_lab.eval.reporting.export import to_markdown
    from bench.graph_scale import result_table
    from bench.graph_scale_results import long_rows
    from bench.remote_concurrency_report import report_parts

    folder = record.ROOT / "results" / "bench"
    scale = json.loads((folder / "graph_scale.json").read_text())
    methods = {int(n): v for n, v in scale["methods"].items()}
    table = to_markdown(result_table(methods, scale["stores"]))
    assert (folder / "graph_scale.md").read_text() == record.markdown(table, _runs(scale))
    assert scale["rows"] == long_rows(methods, scale["stores"])
    remote = json.loads((folder / "remote_concurrency.json").read_text())
    header, lines, checks = report_parts(remote["rows"], remote["settings"], remote["failures"])
    text = "\n".join([header, "", *lines, "", checks])
    assert (folder / "remote_concurrency.md").read_text() == record.markdown(text, _runs(remote))
    for name, data in (("graph_scale", scale), ("remote_concurrency", remote)):
        record.write(tmp_path / name, data["rows"], "", _runs(data))
        assert (tmp_path / f"{name}.csv").read_bytes() == (folder / f"{name}.csv").read_bytes()
