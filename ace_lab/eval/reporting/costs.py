"""ACE Table 6b: per-query cost (context size, retrieval and LLM calls, tokens, wall time) per
method, over the questions the runs share.

Means over a shared question set, so a partial run does not shift a ratio by a different
question mix. A run of a handful of questions (a one-question try, a stratified 5) would shrink
that set to its questions and make every row rest on them, so runs answering fewer than
:data:`MIN_SHARED_QUESTIONS` questions are left out of it: each such run is averaged over its
own questions, and its ``questions`` cell says so. Where no listed run reaches the minimum (a
smoke study, the 5-question cold reruns) every run shares.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ace_lab.eval.metrics.context_stats import mean
from ace_lab.eval.reporting.selection import common_ids, method_rows, select_methods

#: Per-query cost columns of a record, in table order.
COST_COLUMNS = ("retrieval_calls", "llm_calls", "input_tokens", "output_tokens", "wall_s")
#: The columns the notebooks show of :func:`cost_table` (the exports keep every column).
COST_VIEW = [
    "method",
    "n",
    "questions",
    "context_tokens",
    *COST_COLUMNS,
    "wall_n",
    "server_cached_tokens",
    "input_ratio",
    "wall_ratio",
]
#: Runs with fewer questions stay out of the shared question set of :func:`cost_table`.
MIN_SHARED_QUESTIONS = 10
#: ``questions`` cells of :func:`cost_table`.
SHARED, OWN = "shared", "own"
SHORT = f"own (fewer than {MIN_SHARED_QUESTIONS}: not in the shared set)"


def cold_wall(sub: pd.DataFrame) -> dict[str, Any]:
    """Cold-cache wall time: a cached call takes milliseconds, so mixing raw times in would
    understate a method's latency. An answer counts with its ``cold_wall_s`` (cached calls at
    their recorded model time), or its ``wall_s`` when it made no cached call; answers with
    neither are left out (``wall_n`` says how many count)."""
    if "cache_hits" not in sub:
        return {"wall_s": mean(sub["wall_s"]), "wall_n": len(sub)}
    fresh = sub["cache_hits"].fillna(0) == 0
    cold = sub["cold_wall_s"] if "cold_wall_s" in sub else pd.Series(index=sub.index, dtype=float)
    wall = cold.where(cold.notna(), sub["wall_s"].where(fresh))
    return {"wall_s": mean(wall.dropna()), "wall_n": int(wall.notna().sum())}


def short_runs(frames: dict[str, pd.DataFrame]) -> list[str]:
    """Runs (name → its rows) left out of the shared question set: those with fewer than
    :data:`MIN_SHARED_QUESTIONS` questions, none where no run has that many."""
    if all(len(rows) < MIN_SHARED_QUESTIONS for rows in frames.values()):
        return []
    return [name for name, rows in frames.items() if len(rows) < MIN_SHARED_QUESTIONS]


def _reference_means(reference: pd.DataFrame | None, ids: pd.Index) -> tuple[float, float]:
    """The reference's mean input tokens and cold wall time on ``ids``; NaNs unless it
    answered every one of them."""
    if reference is None or not set(ids) <= set(reference.index):
        return math.nan, math.nan
    rows = reference.loc[list(ids)]
    return mean(rows["input_tokens"]), cold_wall(rows)["wall_s"]


def cost_table(
    df: pd.DataFrame,
    methods: Sequence[str] | None = None,
    reference: str = "hirag",
    *,
    common: bool = True,
) -> pd.DataFrame:
    """ACE Table 6b: per-query context size, retrieval calls, LLM calls, tokens and wall time.

    ``wall_s`` is the mean over the ``wall_n`` answers made without any cached LLM call.
    ``server_cached_tokens`` is the mean input the LLM server reused from its own prompt cache
    (empty for runs recorded before it was kept): where it is large, ``wall_s`` is warm, e.g.
    a prompt sharing a long prefix with an earlier method's prompt on the same server.

    With ``common`` a row's means are over the questions every listed method (and the
    reference, if present) answered, leaving out runs of fewer than
    :data:`MIN_SHARED_QUESTIONS` (:func:`short_runs`); ``questions`` says which set a row is
    over (``shared``, or a short run's own). ``input_ratio`` is a method's mean input tokens
    over ``reference``'s on the same questions, ``wall_ratio`` the same for ``wall_s``
    (comparable only when the runs were timed under the same conditions); both are empty where
    the reference did not answer them all. Tokens are the cold-cache cost, so the table does
    not depend on which answers were cached. ``df.attrs["note"]`` names the short runs and says
    when the reference is missing or there is no shared question.
    """
    names = select_methods(df, methods)
    present = set(df["method"])
    pool = names + ([reference] if reference in present and reference not in names else [])
    frames = {m: method_rows(df, m).set_index("id") for m in pool}
    notes = []
    short = short_runs(frames) if common else []
    ids: list[str] = []
    if common:
        ids = common_ids([frames[m]["method"] for m in pool if m not in short])
        if not ids:
            notes.append("no question is shared by all methods; means are per method")
    if short:
        counts = ", ".join(f"{m} ({len(frames[m])})" for m in short)
        notes.append(
            f"runs of fewer than {MIN_SHARED_QUESTIONS} questions are left out of the shared "
            f"question set, each averaged over its own questions: {counts}"
        )
    if reference not in frames:
        notes.append(f"reference {reference!r} has no results; input_ratio is empty")
    rows = []
    for method in names:
        shared = bool(ids) and method not in short
        sub = frames[method].loc[ids] if shared else frames[method]
        row: dict[str, Any] = {"method": method, "n": len(sub)}
        row["questions"] = SHARED if shared else (SHORT if method in short else OWN)
        row["context_tokens"] = mean(sub.get("context_tokens"))
        row |= {column: mean(sub[column]) for column in COST_COLUMNS}
        row |= cold_wall(sub)
        cached = sub.get("server_cached_tokens")
        row["server_cached_tokens"] = mean(cached) if cached is not None else math.nan
        ref_input, ref_wall = _reference_means(frames.get(reference), sub.index)
        row["input_ratio"] = row["input_tokens"] / ref_input if ref_input else math.nan
        row["wall_ratio"] = row["wall_s"] / ref_wall if ref_wall else math.nan
        rows.append(row)
    table = pd.DataFrame(rows)
    table.attrs["note"] = "; ".join(notes)
    return table
