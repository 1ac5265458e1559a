"""The documentation's verdict lines, generated from ``results/verdicts.csv`` (``ace-lab
verdicts``): a figure kind of :mod:`ace_lab.eval.reporting.docs_numbers` (:data:`FIGURES`).

``verdicts summary`` is one sentence: how many tests of the headline claims (a row each: a
claim measured in one metric) are supported, contradicted and inconclusive, and the claims
that reached a verdict (with the metric where a claim is measured in several), on the
committed slices and, once they hold records, on the pooled corpora; ``verdicts count WORD``
is the number of rows with that verdict.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ace_lab.eval.reporting.docs_numbers import DocsError, Figure
from ace_lab.eval.reporting.verdicts import POOLED, SLICES

#: The table ``ace-lab verdicts`` writes under ``results/``.
VERDICTS_CSV = "verdicts.csv"


def _verdicts(results_dir: Path) -> pd.DataFrame:
    path = Path(results_dir) / VERDICTS_CSV
    if not path.is_file():
        raise DocsError(f"no {path}: run `ace-lab verdicts` first")
    return pd.read_csv(path)


def verdicts_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``verdicts summary`` or ``verdicts count WORD`` (see the module doc)."""
    table = _verdicts(results_dir)
    if args[:1] == ("count",):
        return str(int(table["verdict"].value_counts().get(args[1], 0)))
    if args != ("summary",):
        raise DocsError(f"verdicts takes summary or count WORD, not {' '.join(args)}")
    corpora = table["corpus"] if "corpus" in table else pd.Series(SLICES, index=table.index)
    texts = [_summary(table[corpora == SLICES], "at the committed n")]
    if (corpora == POOLED).any():
        texts.append(_summary(table[corpora == POOLED], "on the pooled corpora"))
    return "; ".join(texts)


def _summary(table: pd.DataFrame, where: str) -> str:
    counts = table["verdict"].value_counts()
    decided = table[table["verdict"] != "inconclusive"]
    words = ", ".join(f"{int(counts.get(w, 0))} {w}" for w in ("supported", "contradicted"))
    text = f"of {len(table)} tests of headline claims, {words} and "
    text += f"{int(counts.get('inconclusive', 0))} inconclusive {where}"
    if len(decided):
        repeated = set(table["claim"][table["claim"].duplicated()])
        said = [
            f"{r.claim}{f' ({r.metric})' if r.claim in repeated else ''}: {r.verdict}"
            for r in decided.itertuples()
        ]
        text += " (" + "; ".join(said) + ")"
    return text


FIGURES: dict[str, Figure] = {"verdicts": verdicts_figure}
