"""Rows that replace rows: each configuration run as its paper describes it, paired with the
row it replaces, per slice.

A revision is a pair of method names with the one change between them, e.g. ``ace-full:b1500``
for ``ace-full`` (the adaptation at the baselines' 1,500-token budget instead of 2,400) or
``mosaic`` for ``mosaic:signals`` (the analyzer writes the controls instead of signals mapped to
them). :func:`revision_table` pairs the two on the questions both answered in each slice: EM and
F1 of each, the F1 difference with its seeded paired-bootstrap interval and exact sign-flip p,
Holm-adjusted over every comparison of the table (one family: "did any revision change its
row?"), and what each spends (context tokens, input tokens per question). A pair without both
runs in a slice is left out, so the table grows as the reruns land.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ace_lab.eval.reporting.tables import common_ids, paired_tests, per_question
from ace_lab.eval.statistics.exact import holm

#: The columns notebook 06 shows and exports of :func:`revision_table`.
REVISION_VIEW = [
    "slice",
    "method",
    "replaces",
    "change",
    "n",
    "EM",
    "EM_replaced",
    "F1",
    "F1_replaced",
    "ΔF1 [95% CI]",
    "p",
    "p_holm",
    "context_tokens",
    "context_tokens_replaced",
    "input_tokens",
    "input_tokens_replaced",
]


def _mean_on(df: pd.DataFrame, method: str, column: str, ids: list[str]) -> float:
    if column not in df:
        return float("nan")
    return float(per_question(df, method, column).reindex(ids).astype(float).mean())


def revision_table(
    frames: Mapping[str, pd.DataFrame], revisions: Sequence[Sequence[str]]
) -> pd.DataFrame:
    """One row per (slice, revision) whose two runs the slice holds. ``frames`` maps a slice
    label to its results frame; ``revisions`` holds ``(method, replaces, change)`` triples."""
    rows = []
    for label, df in frames.items():
        present = set(df["method"])
        for method, replaced, change in revisions:
            if method not in present or replaced not in present:
                continue
            f1 = paired_tests(df, replaced, [method]).iloc[0]
            em = paired_tests(df, replaced, [method], metric="em").iloc[0]
            ids = common_ids([per_question(df, m, "f1") for m in (method, replaced)])
            rows.append(
                {
                    "slice": label,
                    "method": method,
                    "replaces": replaced,
                    "change": change,
                    "n": int(f1["n"]),
                    "EM": em["EM"],
                    "EM_replaced": em["EM_baseline"],
                    "F1": f1["F1"],
                    "F1_replaced": f1["F1_baseline"],
                    "diff": f1["diff"],
                    "ΔF1 [95% CI]": f1["diff [95% CI]"],
                    "p": f1["p_permutation"],
                    "context_tokens": f1["context_tokens"],
                    "context_tokens_replaced": f1["context_tokens_baseline"],
                    "input_tokens": _mean_on(df, method, "input_tokens", ids),
                    "input_tokens_replaced": _mean_on(df, replaced, "input_tokens", ids),
                }
            )
    table = pd.DataFrame(rows, columns=[*REVISION_VIEW, "diff"])
    if not table.empty:
        table["p_holm"] = holm(table["p"].tolist())
    return table
