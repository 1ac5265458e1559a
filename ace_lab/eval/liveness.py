"""Mechanism liveness: how often each value of each adaptive decision occurred over a slice.

A method that adapts per question (ACE's router and planner, ArcRAG's passes and sufficiency
check, MOSAIC's analyzer controls) is only adaptive where its decisions actually vary. This
module is the generic half of that check: each method's report package reads its own records
into one *decision row* per question, ``{mechanism: value}`` (a value of None means the
mechanism did not decide anything for that question, e.g. the router of a Full-ACE run), and
:func:`frequency_table` turns the rows into a frequency table: one row per (mechanism, value)
with its count, its share of the questions the mechanism decided (``n``) and ``inert`` — true
for every row of a mechanism whose most frequent value covers at least :data:`INERT_SHARE` of
them. :func:`method_liveness` does that per method of a study's records,
:func:`liveness_summary` keeps one line per mechanism, :func:`write_liveness` writes a study's
``liveness.csv`` and ``liveness.md``.

Values are compared as text (:func:`value_text`): booleans ``yes``/``no``, sequences joined by
``+`` (``()`` is ``none``), floats to two decimals, so a list and the tuple a payload holds
count as the same value.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.eval.reporting.export import to_markdown
from ace_lab.eval.reporting.tables import method_rows

#: A mechanism is inert where one value covers at least this share of the questions it decided.
INERT_SHARE = 0.95
#: The columns of a frequency table (:func:`frequency_table`, with ``method`` first per study).
COLUMNS = ("mechanism", "value", "count", "share", "n", "inert")
#: The file stem a study's liveness table is written under (``liveness.csv``, ``liveness.md``).
LIVENESS_NAME = "liveness"

#: One question's decisions: mechanism → value (None: the mechanism decided nothing here).
Decisions = Mapping[str, Any]
#: Reads one record (a row of a study's results, as a dict) into its decisions; None for a
#: record the reader does not own.
DecisionReader = Callable[[Mapping[str, Any]], Decisions | None]


def missing(value: Any) -> bool:
    """True for None and for the NaN a results frame holds where a record has no such column."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def study_task(frame: pd.DataFrame) -> str | None:
    """The task of the study a results frame was read from (its manifest's ``task``: ``qa``,
    ``open`` or ``qfs``); None for a frame not read from a study folder or without one."""
    directory = frame.attrs.get("study_dir")
    if not directory:
        return None
    try:
        manifest = json.loads((Path(directory) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest.get("task") if isinstance(manifest, dict) else None


def value_text(value: Any) -> str:
    """``value`` as the text the table groups by (see the module docstring)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.0f}" if value.is_integer() else f"{value:.2f}"
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(map(value_text, value)) if isinstance(value, set | frozenset) else value
        return "+".join(map(value_text, items)) or "none"
    return str(value)


def frequency_table(rows: Iterable[Decisions]) -> pd.DataFrame:
    """One row per (mechanism, value) over ``rows``: ``count``, ``share`` of the mechanism's
    ``n`` (the rows where it decided something) and ``inert``. Mechanisms keep the order they
    first appear in; values are ordered by count, most frequent first, then by text."""
    counts: dict[str, Counter[str]] = {}
    for row in rows:
        for mechanism, value in row.items():
            if not missing(value):
                counts.setdefault(mechanism, Counter())[value_text(value)] += 1
    out = []
    for mechanism, counter in counts.items():
        n = sum(counter.values())
        inert = max(counter.values()) / n >= INERT_SHARE
        for value, count in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])):
            out.append((mechanism, value, count, count / n, n, inert))
    return pd.DataFrame(out, columns=list(COLUMNS))


def method_liveness(
    frame: pd.DataFrame, read: DecisionReader, methods: Iterable[str] | None = None
) -> pd.DataFrame:
    """:func:`frequency_table` per method of a study's records (``method`` first), over the
    records ``read`` owns; ``methods`` (default: every method of ``frame``, in its order)
    restricts and orders them. A method none of whose records ``read`` owns has no rows."""
    if frame.empty or "method" not in frame:
        return pd.DataFrame(columns=["method", *COLUMNS])
    names = list(dict.fromkeys(frame["method"])) if methods is None else list(methods)
    tables = []
    for name in names:
        records = method_rows(frame, name).to_dict("records")
        decided = [d for d in map(read, records) if d is not None]
        table = frequency_table(decided)
        if not table.empty:
            table.insert(0, "method", name)
            tables.append(table)
    if not tables:
        return pd.DataFrame(columns=["method", *COLUMNS])
    return pd.concat(tables, ignore_index=True)


def liveness_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per mechanism (per method and slice where ``table`` has those columns): ``n``,
    the number of distinct ``values``, the most frequent value (``top``), its ``share`` and
    ``inert``."""
    keys = [c for c in ("slice", "method") if c in table] + ["mechanism"]
    if table.empty:
        return pd.DataFrame(columns=[*keys, "n", "values", "top", "share", "inert"])
    rows = []
    for key, group in table.groupby(keys, sort=False):
        first = group.iloc[0]  # values are ordered most frequent first
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "n": int(first["n"]),
                "values": len(group),
                "top": first["value"],
                "share": float(first["share"]),
                "inert": bool(first["inert"]),
            }
        )
    return pd.DataFrame(rows)


def inert_text(inert: bool) -> str:
    """The table's mark: **inert** in bold, nothing otherwise."""
    return "**inert**" if inert else ""


def liveness_markdown(table: pd.DataFrame) -> str:
    """``table`` (a frequency table or a summary) as markdown: shares as percentages, methods
    as code, ``inert`` as a bold mark."""
    shown = table.copy()
    if "method" in shown:
        shown["method"] = shown["method"].map(lambda m: f"`{m}`")
    shown["share"] = shown["share"].map(lambda s: f"{100 * s:.0f} %")
    shown["inert"] = shown["inert"].map(inert_text)
    return to_markdown(shown)


def write_liveness(table: pd.DataFrame, directory: Path | str) -> dict[str, Path]:
    """Write ``table`` as ``<directory>/liveness.csv`` (full precision) and ``liveness.md``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = {ext: directory / f"{LIVENESS_NAME}.{ext}" for ext in ("csv", "md")}
    table.to_csv(paths["csv"], index=False)
    paths["md"].write_text(liveness_markdown(table) + "\n", encoding="utf-8")
    return paths
