"""The typed build entry point: schema, extraction, reflection, then the shared assembly.

Every stage resumes from its file in ``run_dir``; records made under another schema or
reflection mode are refused rather than silently mixed. The committed triples become nodes and
edges through :class:`~ace_lab.graph.assemble.TripleAssembler`, as OpenIE's do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ace_lab.data import Chunk
from ace_lab.graph.assemble import TripleAssembler
from ace_lab.graph.extract import cost_summary, read_records, run_per_chunk
from ace_lab.graph.tables import GraphTables
from ace_lab.graph.typed.config import DEFAULT_CONFIG, EXTRACT_FILE, REFLECT_FILE, TypedConfig
from ace_lab.graph.typed.extract import extractor
from ace_lab.graph.typed.reflect import reflector
from ace_lab.graph.typed.schema import load_or_induce_schema
from ace_lab.llm import LLM


def _check_resumable(path: Path, expect: dict[str, str]) -> None:
    """Refuse records made under another schema or reflection mode: they would mix silently."""
    for cid, record in read_records(path).items():
        for key, value in expect.items():
            if record.result.get(key) != value:
                raise ValueError(
                    f"{path}: chunk {cid} was built with another {key} "
                    f"({record.result.get(key)!r} != {value!r}); use a fresh run_dir"
                )


def build_typed(
    chunks: Sequence[Chunk],
    llm: LLM,
    run_dir: Path | str,
    config: TypedConfig = DEFAULT_CONFIG,
    meta: dict[str, Any] | None = None,
    progress: bool = True,
) -> GraphTables:
    """The typed graph of ``chunks``; every stage resumes from its file in ``run_dir``.

    ``meta`` extras (dataset, command, ...) are stored with the graph, next to the schema, the
    LLM cost per stage and the reflection counts.
    """
    chunks = list(chunks)
    run_dir = Path(run_dir)
    schema = load_or_induce_schema(chunks, llm, run_dir, config)

    extract_path = run_dir / EXTRACT_FILE
    _check_resumable(extract_path, {"schema": schema.fingerprint})
    extracted = run_per_chunk(
        chunks,
        extractor(llm, schema, config),
        extract_path,
        llm,
        desc="typed extract",
        progress=progress,
    )
    extracted = {c.id: extracted[c.id] for c in chunks}
    cost: dict[str, Any] = {
        "schema": schema.cost,
        "extract": cost_summary(extracted, "typed_extract"),
    }

    if config.reflection == "off":
        final = {cid: r.result["triples"] for cid, r in extracted.items()}
        stats: dict[str, Any] = {"mode": "off"}
    else:
        reflect_path = run_dir / REFLECT_FILE
        _check_resumable(
            reflect_path, {"schema": schema.fingerprint, "reflection": config.reflection}
        )
        reflected = run_per_chunk(
            chunks,
            reflector(llm, schema, config, extracted),
            reflect_path,
            llm,
            desc="typed reflect",
            progress=progress,
        )
        reflected = {c.id: reflected[c.id] for c in chunks}
        cost["reflect"] = cost_summary(reflected, "typed_reflect")
        final = {cid: r.result["triples"] for cid, r in reflected.items()}
        results = [r.result for r in reflected.values()]
        stats = {
            "mode": config.reflection,
            "chunks_reflected": sum(r["reflected"] for r in results),
            "kept": sum(r["kept"] for r in results),
            "dropped": sum(r["dropped"] for r in results),
            "repaired": sum(r["repaired"] for r in results),
            "fallbacks": sum(r["fallback"] for r in results),
        }
    n = max(len(chunks), 1)
    per_chunk = sum(c.get("llm_calls", 0) for c in cost.values())
    cost["calls_per_chunk"] = round(per_chunk / n, 3)

    nodes, edges = _assemble(chunks, final)
    info = dict(meta or {}) | {
        "family": "typed",
        "schema": schema.to_dict(),
        "config": asdict(config),
        "cost": cost,
        "reflection": stats,
    }
    info.setdefault("model", llm.model_identity)
    return GraphTables.from_records(nodes, edges, info)


def _assemble(
    chunks: Sequence[Chunk], triples_by_chunk: dict[str, list[dict[str, str]]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Typed entity nodes, relation edges and ``MENTIONED_IN`` edges.

    One node per normalised name: its label is the type it was given most often (ties: first
    seen), its name the most frequent surface form. A repeated (subject, relation, object) is
    one edge whose weight counts its chunks.
    """
    graph = TripleAssembler()
    for chunk in chunks:
        for t in triples_by_chunk.get(chunk.id, []):
            graph.triple(
                chunk.id,
                t["subject"],
                t["relation"],
                t["object"],
                rel_type=t["relation"],
                key=t["relation"],
                subject_type=t["subject_type"],
                object_type=t["object_type"],
            )
    return graph.rows(chunks)
