"""Writing result tables: GitHub markdown, LaTeX (booktabs) and CSV, with one number format.

``export_table`` writes the three files notebooks and ``ace-lab report --export`` produce for
every table; ``to_markdown`` is also what the notebooks display, so a shown table and its
``.md`` file are the same text. ``markdown_section`` puts generated text into a marked part of a
hand-written document (see :mod:`ace_lab.eval.reporting.docs_numbers` for the documentation's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import pandas as pd


def _cell(value: Any, floatfmt: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        return format(float(value), floatfmt)
    return str(value)


def to_markdown(df: pd.DataFrame, floatfmt: str = ".3f") -> str:
    """A GitHub markdown table (numbers right-aligned); written here to avoid ``tabulate``."""
    columns = [str(c) for c in df.columns]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = ["---:" if num else "---" for num in numeric]
    body = [line([_cell(v, floatfmt) for v in row]) for row in df.itertuples(index=False)]
    return "\n".join([line(columns), "| " + " | ".join(rule) + " |", *body])


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def to_latex(df: pd.DataFrame, floatfmt: str = ".3f") -> str:
    """A LaTeX tabular (booktabs rules); pandas' ``to_latex`` when jinja2 is importable."""
    try:
        import jinja2  # noqa: F401  (pandas' to_latex renders through a jinja2 Styler)

        return df.to_latex(
            index=False, escape=True, na_rep="", float_format=lambda v: format(v, floatfmt)
        )
    except ImportError:
        pass
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]
    spec = "".join("r" if num else "l" for num in numeric)
    header = " & ".join(_latex_escape(str(c)) for c in df.columns) + r" \\"
    body = [
        " & ".join(_latex_escape(_cell(v, floatfmt)) for v in row) + r" \\"
        for row in df.itertuples(index=False)
    ]
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", header, r"\midrule"]
    return "\n".join([*lines, *body, r"\bottomrule", r"\end{tabular}", ""])


def export_table(df: pd.DataFrame, name: str, results_dir: Path | str) -> dict[str, Path]:
    """Write ``<name>.csv`` (full precision), ``<name>.md`` and ``<name>.tex`` (3 decimals)."""
    directory = Path(results_dir)
    directory.mkdir(parents=True, exist_ok=True)
    paths = {ext: directory / f"{name}.{ext}" for ext in ("csv", "md", "tex")}
    df.to_csv(paths["csv"], index=False)
    paths["md"].write_text(to_markdown(df) + "\n", encoding="utf-8")
    paths["tex"].write_text(to_latex(df), encoding="utf-8")
    return paths


def markdown_section(text: str, name: str, body: str) -> str:
    """``text`` with what lies between the markers ``<!-- name: begin -->`` and
    ``<!-- name: end -->`` replaced by ``body`` on lines of its own; a ValueError unless each
    marker occurs once, begin first. The markers stay, so the section can be regenerated."""
    begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ValueError(f"expected one {begin!r} and, after it, one {end!r}")
    head, rest = text.split(begin)
    tail = rest.split(end)[1]
    return f"{head}{begin}\n{body.strip(chr(10))}\n{end}{tail}"
