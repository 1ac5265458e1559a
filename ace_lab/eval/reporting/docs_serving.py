"""The serving page's measurements, generated from the committed bench results
(``results/serving/<run>/llm_serving.json``, written by ``bench/llm_serving.py``): figure kinds
of :mod:`ace_lab.eval.reporting.docs_numbers` (:data:`FIGURES`). ``RUN`` names the folder under
``results/serving`` (``.`` for the main comparison), ``KEY`` an option's key (``x``, ``n``,
``n-fa``, ...)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.eval.reporting.docs_numbers import DocsError, Figure
from ace_lab.eval.reporting.export import to_markdown

#: The bench's result file in each run folder.
SERVING_FILE = "llm_serving.json"


@cache
def _rows(results_dir: Path, run: str) -> tuple[dict[str, Any], ...]:
    path = Path(results_dir) / "serving" / run / SERVING_FILE
    if not path.is_file():
        raise DocsError(f"no serving measurements at {path}: run bench/llm_serving.py first")
    return tuple(json.loads(path.read_text(encoding="utf-8")))


def _row(results_dir: Path, run: str, key: str) -> dict[str, Any]:
    found = [r for r in _rows(Path(results_dir), run) if r.get("key") == key]
    if len(found) != 1:
        raise DocsError(f"results/serving/{run}: no option {key!r}")
    return found[0]


def format_value(value: Any, form: str) -> str:
    """``value`` as ``form`` says: a number of decimals, ``x`` (a speed-up, ``1.59×``), ``pct``
    (``89 %``) or ``raw`` (as stored)."""
    if form == "raw":
        return str(value)
    if value is None:
        return "—"
    if form == "x":
        return f"{float(value):.2f}×"
    if form == "pct":  # two significant digits under 10 %
        share = float(value)
        return f"{100 * share:.0f} %" if share >= 0.1 or share == 0 else f"{100 * share:.1f} %"
    return f"{float(value):,.{int(form)}f}"


def serving_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``serving RUN KEY COLUMN FORMAT``: one measured value (COLUMN with ``_`` for spaces,
    e.g. ``prompt_tok/s``) of one option, formatted by :func:`format_value`."""
    run, key, column, form = args
    row = _row(results_dir, run, key)
    name = column.replace("_", " ")
    if name not in row:
        raise DocsError(f"results/serving/{run}: no column {name!r}")
    return format_value(row[name], form)


def serving_ratio_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``serving_ratio RUN KEY_A KEY_B COLUMN``: A's COLUMN over B's, one decimal (``1.5×``)."""
    run, a, b, column = args
    name = column.replace("_", " ")
    ratio = float(_row(results_dir, run, a)[name]) / float(_row(results_dir, run, b)[name])
    return f"{ratio:.1f}×"


def serving_range_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``serving_range COLUMN DECIMALS RUN:KEY...``: the lowest and highest COLUMN over the
    named options, ``low–high``."""
    column, decimals, *picked = args
    name = column.replace("_", " ")
    values = [float(_row(results_dir, *p.split(":", 1))[name]) for p in picked]
    return f"{min(values):.{int(decimals)}f}–{max(values):.{int(decimals)}f}"


def serving_table_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``serving_table RUN``: every option of a run side by side: prompt and generation speed,
    HiRAG's and Full-ACE's seconds per query with the speed-up over the first option, the
    share of replies that changed and the share of prompt tokens reused."""
    (run,) = args
    rows = []
    for row in _rows(Path(results_dir), run):
        hirag, full = row["hirag speed-up"], row["ace-full speed-up"]
        rows.append(
            {
                "option": row["option"],
                "prompt tok/s": f"{row['prompt tok/s']:.1f}",
                "gen tok/s": f"{row['gen tok/s']:.1f}",
                "HiRAG s/query": f"{row['hirag s/query']:.1f} ({format_value(hirag, 'x')})",
                "Full-ACE s/query": f"{row['ace-full s/query']:.1f} ({format_value(full, 'x')})",
                "outputs changed": row.get("outputs changed") or "—",
                "prompt tokens reused": format_value(row.get("prompt reused"), "pct"),
            }
        )
    return to_markdown(pd.DataFrame(rows))


@cache
def _replies(results_dir: Path, run: str, key: str) -> tuple[dict[str, Any], ...]:
    path = Path(results_dir) / "serving" / run / f"replies_{key}.json"
    if not path.is_file():
        raise DocsError(f"no replies at {path}: run bench/llm_serving.py with --out first")
    return tuple(json.loads(path.read_text(encoding="utf-8")))


def serving_changed_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``serving_changed RUN KEY_A KEY_B``: ``k of n``, the replies of the same requests whose
    text differs between two options of a run (``replies_<key>.json``)."""
    run, a, b = args
    first, second = _replies(Path(results_dir), run, a), _replies(Path(results_dir), run, b)
    if len(first) != len(second):
        raise DocsError(f"results/serving/{run}: {a} and {b} answered different requests")
    changed = sum(x["text"] != y["text"] for x, y in zip(first, second, strict=True))
    return f"{changed} of {len(first)}"


def serving_tokens_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``serving_tokens RUN KEY FIELD``: the mean of a reply field over an option's replies
    (``prompt_n``: prompt tokens a call, ``predicted_n``: tokens generated), whole."""
    run, key, field = args
    values = [float(r[field]) for r in _replies(Path(results_dir), run, key)]
    return f"{sum(values) / len(values):,.0f}"


FIGURES: dict[str, Figure] = {
    "serving_changed": serving_changed_figure,
    "serving_tokens": serving_tokens_figure,
    "serving": serving_figure,
    "serving_ratio": serving_ratio_figure,
    "serving_range": serving_range_figure,
    "serving_table": serving_table_figure,
}
