"""What a kill left and what the resumed build or run wrote (:mod:`tests.reliability.crash_resume`):
JSON-lines files read strictly or up to their torn tail, the SQLite cache's integrity, and the
resumed outputs compared with an uninterrupted reference's (apart from timing and cache hits)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from tests.reliability import crash_driver as driver

#: Record fields that depend on timing or on what the cache held when the kill came.
CHUNK_VOLATILE = {"seconds", "cache_hits"}
RESULT_VOLATILE = {"wall_s", "cold_wall_s", "llm_s", "cache_hits", "model_calls"}
STEP_VOLATILE = {"elapsed", "llm_s"}
#: ``cost`` holds seconds per chunk and the corpus stage's tokens net of cache hits; ``build_log``
#: sums the runs a build logged (a resumed build logs more; a kill -9 leaves no line).
META_VOLATILE = {"build_wall_s", "last_run_wall_s", "cost", "build_log"}


# ----------------------------------------------------------------------------- files
def strict_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every line of ``path`` as a JSON object; raises ValueError at the first bad byte."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        raise ValueError(f"{path}: last line is not terminated (torn write)")
    out = []
    for number, line in enumerate(data.split(b"\n")[:-1], 1):
        row = json.loads(line.decode("utf-8"))
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{number}: not a JSON object")
        out.append(row)
    return out


def whole_lines(path: Path) -> list[dict[str, Any]]:
    """The lines of ``path`` that a kill left whole (what must survive the resume)."""
    if not path.is_file():
        return []
    rows = []
    for line in path.read_bytes().split(b"\n")[:-1]:  # the part after the last newline is torn
        try:
            rows.append(json.loads(line.decode("utf-8")))
        except ValueError:
            rows.append({"__corrupt__": line[:80].decode("utf-8", "replace")})
    return rows


def integrity(db: Path) -> str:
    if not db.is_file():
        return "ok"
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def jsonl_problems(root: Path) -> list[str]:
    problems = []
    for path in sorted(root.rglob("*.jsonl")):
        try:
            strict_jsonl(path)
        except ValueError as exc:
            problems.append(f"corrupt: {exc}")
    return problems


# -------------------------------------------------------------------------- outputs
def drop(row: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in keys}


def survived(seen: dict[str, dict[str, Any]], final: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Lines seen whole after a kill that the final files no longer hold unchanged."""
    problems = []
    for key, row in seen.items():
        name = key.split("|", 1)[0]
        if "__corrupt__" in row:
            problems.append(f"{name}: a corrupt line after a kill: {row['__corrupt__']!r}")
        elif name in final and row not in final[name]:
            problems.append(f"{name}: a finished line was lost or redone: {str(row)[:80]}")
    return problems


def build_outputs(work: Path) -> dict[str, Any]:
    from ace_lab.graph.tables import GraphTables

    folder = driver.run_dir(work)
    return {
        "records": strict_jsonl(folder / "hirag_extract.jsonl"),
        "archive": strict_jsonl(folder / "llm_responses.jsonl"),
        "tables": GraphTables.load(folder / "tables"),
    }


def replay_calls(work: Path) -> int:
    """Model calls a rebuild makes from the build's folder with an empty response cache."""
    from ace_lab.graph.build import build_graph
    from ace_lab.llm import LLM
    from tests.support.extraction import hierarchy_config
    from tests.support.scripted import ScriptedClient

    copy = work.parent / f"{work.name}-replay"
    shutil.copytree(
        driver.run_dir(work), driver.run_dir(copy), ignore=shutil.ignore_patterns("tables")
    )
    client = ScriptedClient(lambda kwargs: RuntimeError("a replay must not call the model"))
    llm = LLM(driver.work_settings(copy), client=client)
    with driver.hashed_layers():
        build_graph(
            driver.DATASET,
            driver.N,
            driver.FAMILY,
            settings=driver.work_settings(copy),
            llm=llm,
            progress=False,
            with_index=False,
            config=hierarchy_config(),
        )
    return len(client.requests)


def compare_build(ref: dict[str, Any], work: Path, seen: dict[str, dict[str, Any]]) -> list[str]:
    got = build_outputs(work)
    problems = survived(seen, {"hirag_extract.jsonl": got["records"]})
    ids = [r["chunk_id"] for r in got["records"]]
    if len(ids) != len(set(ids)):
        problems.append(f"duplicated chunk records: {len(ids) - len(set(ids))}")
    want = {r["chunk_id"]: drop(r, CHUNK_VOLATILE) for r in ref["records"]}
    have = {r["chunk_id"]: drop(r, CHUNK_VOLATILE) for r in got["records"]}
    if have != want:
        diff = sorted(k for k in want.keys() | have.keys() if want.get(k) != have.get(k))
        problems.append(f"chunk records differ from the uninterrupted build: {diff[:3]}")
    # The archive holds the responses the *last* process used: after a resume it lacks those of
    # chunks finished before the kill (their records make them unnecessary). So: nothing in it
    # that the uninterrupted build lacks, and a replay from the folder needs no model call.
    if extra := [r["key"] for r in got["archive"] if r not in ref["archive"]]:
        problems.append(f"llm_responses.jsonl has {len(extra)} rows the uninterrupted build lacks")
    a, b = got["tables"], ref["tables"]
    if not (a.nodes.equals(b.nodes) and a.edges.equals(b.edges)):
        problems.append("graph tables differ from the uninterrupted build's")
    if drop(a.meta, META_VOLATILE) != drop(b.meta, META_VOLATILE):
        keys = [k for k in a.meta.keys() | b.meta.keys() if a.meta.get(k) != b.meta.get(k)]
        problems.append(f"graph meta differs: {sorted(keys)}")
    if (calls := replay_calls(work)) != 0:
        problems.append(f"a replay from the resumed folder made {calls} model calls")
    return problems


def result_row(row: dict[str, Any]) -> dict[str, Any]:
    steps = [drop(s, STEP_VOLATILE) for s in row.get("steps", [])]
    return drop(row, RESULT_VOLATILE) | {"steps": steps}


def compare_run(
    ref: list[dict[str, Any]], work: Path, seen: dict[str, dict[str, Any]]
) -> list[str]:
    folder = work / "results" / driver.STUDY
    records = strict_jsonl(folder / f"{driver.METHOD}.jsonl")
    problems = survived(seen, {f"{driver.METHOD}.jsonl": records})
    ids = [r["id"] for r in records]
    if len(ids) != len(set(ids)):
        problems.append(f"duplicated results records: {len(ids) - len(set(ids))}")
    if sorted(map(result_row, records), key=lambda r: r["id"]) != sorted(
        map(result_row, ref), key=lambda r: r["id"]
    ):
        problems.append("results records differ from the uninterrupted run's")
    manifest = json.loads((folder / "manifest.json").read_text())
    entry = manifest["methods"][driver.METHOD]
    if entry.get("records") != len(ref) or entry.get("errors_last_run") != 0:
        problems.append(
            f"manifest: {entry.get('records')} records, {entry.get('errors_last_run')} errors"
        )
    for path in folder.glob("*.errors.jsonl"):
        first = path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
        problems.append(f"an errors file was written: {first[:2000]}")
    return problems
