"""bench/graph_scale.py's committed results, one column per graph size, merged across runs.

:func:`save` writes ``<out>.json`` / ``.csv`` / ``.md`` (:mod:`bench.record`): a run's sizes
replace the same sizes of an earlier file and the other sizes stay, each column with the command,
date and load of the run that measured it. ``<out>.csv`` has one row per size × name × quantity
(``nodes,name,quantity,value``: a method's ``ms_per_query``, a store's ``load_s``, ``MB``,
``anchor_ms`` …), so a document can quote one cell
(``cell bench/graph_scale value 0 nodes=100000 name=arcrag quantity=ms_per_query``).

Run as a script, it converts the printed log of a run (:func:`parse_log`) into the same files,
for a run whose log is kept but which is too long to repeat (10⁶ nodes takes 25 minutes)::

    .venv/bin/python bench/graph_scale_results.py LOG --out results/bench/graph_scale \\
        --command ".venv/bin/python bench/graph_scale.py --sizes 1000000" \\
        --date "2026-12-05 08:34 UTC" --note "load average 2-4.5"
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import record

_SIZE = re.compile(r"^\s*([\d,]+) nodes: built in")
_METHOD = re.compile(r"^\s+(\S+)\s+([\d.]+) ms(?:/query| \(one query)")
_STORE = re.compile(r"^\s+store (\w+)\S*: (\{.*\})$")


def long_rows(methods: dict[int, dict[str, float]], stores: list[dict]) -> list[dict[str, Any]]:
    """One row per size × name × quantity (the CSV's rows)."""
    rows = [
        {"nodes": n, "name": name, "quantity": "ms_per_query", "value": round(ms, 3)}
        for n, by_method in methods.items()
        for name, ms in by_method.items()
    ]
    rows += [
        {"nodes": s["nodes"], "name": s["store"], "quantity": key, "value": round(value, 3)}
        for s in stores
        for key, value in s.items()
        if key not in ("nodes", "store")
    ]
    return sorted(rows, key=lambda r: r["nodes"])


def save(
    out: Path, methods: dict[int, dict[str, float]], stores: list[dict], run: record.Run
) -> str:
    """Write ``methods`` (size -> method -> ms) and ``stores`` (one dict per size and store)
    measured by ``run`` into ``out``, merged with the other sizes an earlier run wrote there;
    returns the markdown table written."""
    from ace_lab.eval.reporting.export import to_markdown
    from bench.graph_scale import result_table

    _, runs, extra = record.read(out)
    sizes = set(methods)
    old_methods = {int(n): v for n, v in extra.get("methods", {}).items() if int(n) not in sizes}
    merged = dict(sorted((old_methods | methods).items()))
    old_stores = [s for s in extra.get("stores", []) if s["nodes"] not in sizes]
    merged_stores = sorted(old_stores + stores, key=lambda s: s["nodes"])
    run.columns = [f"{n:,} nodes" for n in sorted(sizes)]
    kept = []
    for earlier in runs:  # a size measured again is this run's column now
        earlier.columns = [c for c in earlier.columns if c not in run.columns]
        kept += [earlier] if earlier.columns else []
    runs = sorted([*kept, run], key=lambda r: int(r.columns[0].split()[0].replace(",", "")))
    table = to_markdown(result_table(merged, merged_stores))
    record.write(
        out,
        long_rows(merged, merged_stores),
        table,
        runs,
        methods={str(n): v for n, v in merged.items()},
        stores=merged_stores,
    )
    return table


def parse_log(text: str) -> tuple[dict[int, dict[str, float]], list[dict]]:
    """The methods' ms per query and the stores' rows of a printed bench/graph_scale.py log."""
    methods: dict[int, dict[str, float]] = {}
    stores: list[dict] = []
    size = 0
    for line in text.splitlines():
        if m := _SIZE.match(line):
            size = int(m[1].replace(",", ""))
            methods[size] = {}
        elif (m := _STORE.match(line)) and size:
            stores.append({"nodes": size, "store": m[1], **ast.literal_eval(m[2])})
        elif (m := _METHOD.match(line)) and size:
            methods[size][m[1]] = float(m[2])
    if not methods:
        raise ValueError("no '<n> nodes: built in' line: not a bench/graph_scale.py log")
    return methods, stores


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Convert a bench/graph_scale.py log.")
    parser.add_argument("log", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--command", required=True, help="the command that printed the log")
    parser.add_argument("--date", required=True, help="when that command ran (UTC)")
    parser.add_argument("--note", default="", help="the load and anything else worth keeping")
    args = parser.parse_args(argv)
    methods, stores = parse_log(args.log.read_text())
    run = record.Run(
        command=args.command,
        date=args.date,
        load_start=(),
        load_end=(),
        note=f"converted from the log of that command ({args.log.name}) by "
        f"bench/graph_scale_results.py; {args.note}".rstrip("; "),
    )
    print(save(args.out, methods, stores, run))


if __name__ == "__main__":
    main()
