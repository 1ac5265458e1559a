"""Facts about a study's slice and graph, generated for its README: figure kinds of
:mod:`ace_lab.eval.reporting.docs_numbers` (:data:`FIGURES`). The graph's come from the
committed build's ``tables/meta.json`` (``data/graphs/<slice>/<family>/<model>``), the slice's
from the study's records and the committed slice file (``data/slices/<slice>.json``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ace_lab.eval.reporting.docs_numbers import DocsError, Figure, study_records

#: Where the committed graph builds and slices are, relative to the results folder.
GRAPHS = Path("..") / "data" / "graphs"
SLICES = Path("..") / "data" / "slices"


def _meta(results_dir: Path, build: str) -> dict[str, Any]:
    path = Path(results_dir) / GRAPHS / build / "tables" / "meta.json"
    if not path.is_file():
        raise DocsError(f"no committed graph build at {path.parent.parent}")
    return json.loads(path.read_text(encoding="utf-8"))


def graph_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``graph SLICE/FAMILY/MODEL KEY``: a value of the committed build's meta, ``KEY`` a dotted
    path (``counts.node_labels.Entity``, ``communities.reported``, ``chunks``, ``cost.0.fallbacks``:
    a number indexes a list, such as a build's cost stages); a list at the end gives its length
    (``levels``: the number of summary levels). Whole numbers with thousands separators."""
    build, key = args
    value: Any = _meta(results_dir, build)
    for part in key.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise DocsError(f"{build}: no {key!r} in its meta.json")
    if isinstance(value, list):
        value = len(value)
    return f"{value:,}" if isinstance(value, int) else str(value)


def slice_documents_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``slice_documents SLICE``: how many source documents the committed slice's passages come
    from (their ``meta.doc_id``, e.g. the novels of a GraphRAG-Bench Novel slice)."""
    (name,) = args
    path = Path(results_dir) / SLICES / f"{name}.json"
    if not path.is_file():
        raise DocsError(f"no committed slice {path}")
    passages = json.loads(path.read_text(encoding="utf-8"))["passages"]
    documents = {(p.get("meta") or {}).get("doc_id") for p in passages}
    if None in documents:
        raise DocsError(f"{path}: a passage has no meta.doc_id")
    return str(len(documents))


def question_types_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``question_types STUDY METHOD``: the slice's questions per type, most first, as a method
    answered them (``11 Fact Retrieval, 5 Complex Reasoning, ...``; underscores as spaces)."""
    study, method = args
    records = study_records(Path(results_dir), study)
    rows = records[records["method"] == method].drop_duplicates("id")
    if rows.empty:
        raise DocsError(f"no records of {method!r} in study {study!r}")
    counts = rows["type"].fillna("untyped").value_counts(sort=False)
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], list(counts.index).index(kv[0])))
    return ", ".join(f"{n} {str(kind).replace('_', ' ')}" for kind, n in ordered)


#: A MuSiQue question type: its hop count, then the decomposition's shape (``3hop1``, ``4hop2``).
HOP_TYPE = re.compile(r"(\d+)hop")
HOP_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def hops_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``hops STUDY METHOD``: the slice's questions per hop count (MuSiQue's types ``2hop``,
    ``3hop1``, ...), fewest hops first, as a method answered them: ``7 two-hop, 1 three-hop and
    2 four-hop``."""
    study, method = args
    records = study_records(Path(results_dir), study)
    rows = records[records["method"] == method].drop_duplicates("id")
    if rows.empty:
        raise DocsError(f"no records of {method!r} in study {study!r}")
    counts: dict[int, int] = {}
    for kind in rows["type"]:
        match = HOP_TYPE.match(str(kind))
        if match is None:
            raise DocsError(f"{study}: {method!r} answered a question of type {kind!r}, no hops")
        counts[int(match[1])] = counts.get(int(match[1]), 0) + 1
    shown = [f"{n} {HOP_WORDS.get(h, str(h))}-hop" for h, n in sorted(counts.items())]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + f" and {shown[-1]}"


FIGURES: dict[str, Figure] = {
    "graph": graph_figure,
    "slice_documents": slice_documents_figure,
    "question_types": question_types_figure,
    "hops": hops_figure,
}
