"""Which rows a result table reads: the methods (registry order unless named), one row per
question of a method, and the questions several methods share.

Every table of :mod:`ace_lab.eval.reporting.tables` and :mod:`ace_lab.eval.reporting.costs`
selects its rows here, so a comparison is always made on the same question mix.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ace_lab.registry import METHODS


def select_methods(df: pd.DataFrame, methods: Sequence[str] | None) -> list[str]:
    """``methods`` (all present, else KeyError), or every method present in registry order."""
    present = list(dict.fromkeys(df["method"])) if "method" in df else []
    if methods is None:  # the registry's order: baselines first, then ACE and its variants
        known = {name: i for i, name in enumerate(METHODS)}
        return sorted(present, key=lambda m: known.get(m, len(known)))
    missing = [m for m in methods if m not in present]
    if missing:
        raise KeyError(f"no results for {missing}; the frame has {present}")
    return list(methods)


def method_rows(df: pd.DataFrame, method: str) -> pd.DataFrame:
    """One method's rows, one per question id (a duplicated id keeps its last record)."""
    sub = df[df["method"] == method]
    return sub.drop_duplicates("id", keep="last")


def per_question(df: pd.DataFrame, method: str, column: str) -> pd.Series:
    """``column`` of ``method`` indexed by question id, questions without a value dropped."""
    sub = method_rows(df, method)
    return sub.set_index("id")[column].dropna().astype(float)


def common_ids(series: Sequence[pd.Series]) -> list[str]:
    """Ids present in every series, in the first one's (slice) order."""
    if not series:
        return []
    shared = set(series[0].index).intersection(*(set(s.index) for s in series[1:]))
    return [i for i in series[0].index if i in shared]
