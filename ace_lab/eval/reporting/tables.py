"""Result tables from a study's records: pure functions of the results DataFrame, no LLM.

Every table takes the frame :func:`ace_lab.eval.studies.study.load_results` returns (one row per
question × method, columns as in :func:`ace_lab.eval.studies.record.record`) and returns a small
DataFrame, so notebooks, ``ace-lab report`` and the paper tables share one implementation:

- :func:`main_table`: the answer scores (EM, F1) with 95% intervals (Wilson for 0/1 scores,
  bootstrap otherwise), the context columns and mean cost per method;
- :func:`main_table_by_dataset`: those tables side by side, one column group per data set;
- :func:`paired_tests`: F1 differences against a baseline on shared questions (exact
  sign-flip p, Holm-adjusted over the table's comparisons, minimal detectable difference by
  the paired t test);
- :func:`transfer_table`: a backbone alone against a layer over it, with the paired difference;
- :func:`coverage_table`: ACE Table 5 (answer coverage before/after refinement, recovery);
- :func:`~ace_lab.eval.reporting.costs.cost_table`: ACE Table 6b (per-query calls, tokens,
  time, input ratio; its own module, re-exported here).

Every table carries :data:`~ace_lab.eval.metrics.context_stats.CONTEXT_COLUMNS` (context size, the
two recalls, the evidence metrics, format compliance; :mod:`ace_lab.eval.metrics.context_stats`).
Scores and context columns are the rows of the metrics table (:mod:`ace_lab.eval.metrics.table`),
read when a table is made, so a new row reaches every table.

ACE's router and ablation tables are in ``ace_lab.ace.report``; writing tables to
files in :mod:`ace_lab.eval.reporting.export`. Comparisons between methods use the questions both
answered (a partial run must not be compared on a different question mix); per-method
summaries use all of a method's rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ace_lab.eval.metrics import coverage_and_recovery
from ace_lab.eval.metrics.context_stats import (
    CONTEXT_VIEW,
    ORIGIN_COLUMNS,
    context_columns,
    mean,
    origin_columns,
    readers,
)
from ace_lab.eval.metrics.table import answer_metrics, context_metrics
from ace_lab.eval.reporting.costs import COST_COLUMNS, cold_wall
from ace_lab.eval.reporting.costs import COST_VIEW as COST_VIEW  # re-exported for notebooks
from ace_lab.eval.reporting.costs import cost_table as cost_table  # re-exported for notebooks
from ace_lab.eval.reporting.selection import common_ids, method_rows, per_question, select_methods
from ace_lab.eval.statistics import paired_bootstrap
from ace_lab.eval.statistics.exact import holm
from ace_lab.eval.statistics.power import TARGET_DIFF, min_detectable_difference, pairs_needed
from ace_lab.eval.statistics.proportions import mean_interval
from ace_lab.eval.statistics.resampling import N_RESAMPLES

#: The columns the notebooks show of :func:`main_table` (those present).
MAIN_VIEW = [
    "method",
    "n",
    "reader",
    *(f"{metric.label} [95% CI]" for metric in answer_metrics()),
    *CONTEXT_VIEW,
    *COST_COLUMNS,
]
#: The columns the notebooks show of :func:`paired_tests`.
PAIRED_VIEW = [
    "method",
    "n",
    "F1",
    "F1_baseline",
    "diff [95% CI]",
    "p_permutation",
    "p_holm",
    "mde",
    "n_for_+0.05",
    "context_tokens",
    "context_tokens_baseline",
]


def paired_view(metric: str = "f1") -> list[str]:
    """:data:`PAIRED_VIEW` for :func:`paired_tests` of ``metric`` (its columns carry its label)."""
    label = metric.upper()
    renamed = {"F1": label, "F1_baseline": f"{label}_baseline"}
    return [renamed.get(column, column) for column in PAIRED_VIEW]


def default_paired_metric(df: pd.DataFrame) -> str:
    """``f1``, or for a study whose every record is evidence-only (no answer to score) the
    evidence metric its claims read first, ``passage_recall``."""
    only = df.get("evidence_only")
    return "passage_recall" if only is not None and bool(only.eq(True).all()) else "f1"


#: The paper's names for :func:`coverage_table`'s columns (ACE Table 5).
COVERAGE_LABELS = {
    "coverage_initial": "Initial (C_base)",
    "coverage_final": "Final (C̃)",
    "recovery": "Recovery",
    "initial": "initial context",
}


# -------------------------------------------------------------------------------- main table
def main_table(
    df: pd.DataFrame,
    methods: Sequence[str] | None = None,
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per method: n, the reader(s) that answered (``reader``), each answer score of the
    metrics table (EM, F1) as its mean with a 95% interval (``<label>``, ``<label>_low``,
    ``<label>_high``, ``<label> [95% CI]``), the context columns and mean cost.

    Scores average over questions with a gold answer. A column whose scores are all 0 or 1 (EM
    always; F1 where every answer was wholly right or wrong) is a proportion and gets the Wilson
    interval, which has width at any n (a bootstrap of ten zeros is ``[0, 0]``); other F1 columns
    get the percentile bootstrap, seeded so a rerun prints the same numbers
    (:func:`~ace_lab.eval.statistics.proportions.mean_interval`). Cost columns are per-query
    means; ``wall_s`` is the cold-cache wall time (see ``cost_table``).
    """
    rows = []
    origins = bool(origin_columns(df))
    for method in select_methods(df, methods):
        sub = method_rows(df, method)
        row: dict[str, Any] = {"method": method, "n": len(sub), "reader": readers(sub)}
        for metric in answer_metrics():
            label, scores = metric.label, metric.values(sub)
            values = pd.Series(dtype=float) if scores is None else scores
            values = pd.to_numeric(values, errors="coerce").dropna()
            ci = mean_interval(values.to_numpy(), n_resamples=n_resamples, seed=seed)
            row |= {
                label: ci.mean,
                f"{label}_low": ci.low,
                f"{label}_high": ci.high,
                f"{label} [95% CI]": str(ci),
            }
        row |= context_columns(sub)
        if origins:  # NaN (an empty cell) for a method whose records do not say
            row |= dict.fromkeys(ORIGIN_COLUMNS, math.nan) | origin_columns(sub)
        row |= {column: mean(sub[column]) for column in COST_COLUMNS if column in sub}
        if "wall_s" in sub:
            row["wall_s"] = cold_wall(sub)["wall_s"]
        rows.append(row)
    return pd.DataFrame(rows)


def main_table_by_dataset(
    tables: Mapping[str, pd.DataFrame], methods: Sequence[str]
) -> pd.DataFrame:
    """The Table 2 layout: one row per method and, for each :func:`main_table` in ``tables``
    (keyed by data set label, in column order), ``<label> n``, each answer score's
    ``[95% CI]`` (EM, F1) and the context columns the table has (``<label> context_tokens`` ...).

    Rows follow ``methods``; a method no table has is left out, one missing from some data
    set has n = 0, ``missing`` intervals and empty context columns there. Empty when no table
    has a row.
    """
    rows: dict[str, dict[str, Any]] = {}
    columns: list[str] = ["method"]
    scores = [f"{metric.label} [95% CI]" for metric in answer_metrics()]
    view = [*(metric.name for metric in context_metrics()), *ORIGIN_COLUMNS]
    for label, table in tables.items():
        names = ["n", *scores, *(c for c in view if c in table)]
        columns += [f"{label} {name}" for name in names]
        for row in table.to_dict("records"):
            entry = rows.setdefault(row["method"], {"method": row["method"]})
            entry |= {f"{label} {name}": row[name] for name in names}
    combined = pd.DataFrame([rows[m] for m in methods if m in rows], columns=columns)
    if combined.empty:
        return pd.DataFrame()
    silent = [c for c in combined if c.endswith(ORIGIN_COLUMNS) and combined[c].isna().all()]
    combined = combined.drop(columns=silent)  # where the context came from: only where told
    for column in combined.columns[1:]:
        if column.endswith(" n"):
            combined[column] = combined[column].fillna(0).astype(int)  # 0: no results
        elif column.endswith("[95% CI]"):
            combined[column] = combined[column].fillna("missing")
        else:
            combined[column] = combined[column].astype(float)  # NaN: no results
    return combined


def paired_tests(
    df: pd.DataFrame,
    baseline: str,
    methods: Sequence[str] | None = None,
    *,
    metric: str = "f1",
    n_resamples: int = N_RESAMPLES,
    n_permutations: int = 100_000,
    seed: int = 0,
) -> pd.DataFrame:
    """Mean ``metric`` difference of each method vs ``baseline`` on the questions both have.

    Pairing per question removes the between-question variance; the interval is a seeded
    paired bootstrap and ``p_permutation`` a two-sided sign-flip test, exact up to 24 non-zero
    differences. ``p_holm`` adjusts the p-values of the table's comparisons against the one
    baseline (Holm). ``sd_diff`` is the SD of the paired differences, ``mde`` the smallest true
    difference the paired t test detects at this n (t quantiles with n − 1 degrees of freedom,
    alpha 0.05, power 0.8) and ``n_for_+0.05`` the pairs needed to detect
    :data:`~ace_lab.eval.statistics.power.TARGET_DIFF` (:mod:`ace_lab.eval.statistics.power`).
    ``context_tokens`` and ``context_tokens_baseline`` are the two methods' mean context sizes
    on those questions.
    """
    names = [m for m in select_methods(df, methods) if m != baseline]
    select_methods(df, [baseline])
    base = per_question(df, baseline, metric)
    label = metric.upper()
    tokens = "context_tokens" in df
    base_tokens = per_question(df, baseline, "context_tokens") if tokens else None
    rows = []
    for method in names:
        other = per_question(df, method, metric)
        ids = common_ids([other, base])
        a, b = other.loc[ids].to_numpy(), base.loc[ids].to_numpy()
        sizes = per_question(df, method, "context_tokens") if tokens else None
        boot = paired_bootstrap(
            a, b, n_resamples=n_resamples, seed=seed, n_permutations=n_permutations
        )
        sd = float((a - b).std(ddof=1)) if len(ids) > 1 else math.nan
        rows.append(
            {
                "method": method,
                "baseline": baseline,
                "n": len(ids),
                label: float(a.mean()) if len(ids) else math.nan,
                f"{label}_baseline": float(b.mean()) if len(ids) else math.nan,
                "diff": boot.mean_diff,
                "diff_low": boot.low,
                "diff_high": boot.high,
                "diff [95% CI]": boot.interval,
                "p_permutation": boot.p_value,
                "p_holm": math.nan,
                "sd_diff": sd,
                "mde": min_detectable_difference(sd, len(ids)),
                "n_for_+0.05": pairs_needed(sd, TARGET_DIFF),
                "context_tokens": mean(sizes.reindex(ids)) if tokens else math.nan,
                "context_tokens_baseline": mean(base_tokens.reindex(ids)) if tokens else math.nan,
            }
        )
    table = pd.DataFrame(rows)
    if not table.empty:
        table["p_holm"] = holm(table["p_permutation"].tolist())
    return table


# ------------------------------------------------------------------------------ transfer
def transfer_table(df: pd.DataFrame, backbone: str, layered: str) -> pd.DataFrame:
    """ACE Table 6a: a backbone alone (``graphrag``) against a layer over it
    (``ace-full@graphrag``).

    One row per method (n, each answer score with its 95% interval as in :func:`main_table`,
    the context columns), then the paired difference ``layered − backbone`` on the questions
    both answered, with its paired-bootstrap interval and the F1 permutation p-value.
    """
    pair = [backbone, layered]
    main = main_table(df, pair).set_index("method")
    scores = answer_metrics()
    context = [metric.name for metric in context_metrics()]
    rows: list[dict[str, Any]] = [
        {
            "method": m,
            "n": int(main.loc[m, "n"]),
            **{s.label: main.loc[m, s.label] for s in scores},
            **{f"{s.label} [95% CI]": main.loc[m, f"{s.label} [95% CI]"] for s in scores},
            "p (permutation)": math.nan,
            **{column: main.loc[m, column] for column in context},
        }
        for m in pair
    ]
    tests = {s.name: paired_tests(df, backbone, [layered], metric=s.name).iloc[0] for s in scores}
    f1 = tests["f1"]  # the test the paper reports
    rows.append(
        {
            "method": f"Δ {layered} − {backbone} (paired)",
            "n": int(f1["n"]),
            **{s.label: tests[s.name]["diff"] for s in scores},
            **{f"{s.label} [95% CI]": tests[s.name]["diff [95% CI]"] for s in scores},
            "p (permutation)": f1["p_permutation"],
            **dict.fromkeys(context, math.nan),
        }
    )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ coverage
def coverage_table(df: pd.DataFrame, methods: Sequence[str] | None = None) -> pd.DataFrame:
    """ACE Table 5: gold coverage of the initial vs final context, and recovery.

    For ACE the initial context is its first retrieval (``base_has_answer``); a method with
    no refinement stage has one context, so its initial coverage is its final coverage and
    recovery is 0 (or None when nothing was uncovered). Yes/no questions are excluded.
    ``context_tokens``, ``passage_recall`` and ``provenance_recall`` are means over the same
    ``n`` questions (the recalls over those with supporting passages).
    """
    rows = []
    for method in select_methods(df, methods):
        sub = method_rows(df, method)
        sub = sub[sub["context_has_answer"].notna()]
        staged = "base_has_answer" in sub and sub["base_has_answer"].notna().any()
        if staged:
            sub = sub[sub["base_has_answer"].notna()]
        final = [bool(v) for v in sub["context_has_answer"]]
        initial = [bool(v) for v in sub["base_has_answer"]] if staged else final
        result = coverage_and_recovery(initial, final)
        context = context_columns(sub)
        rows.append(
            {
                "method": method,
                **result,
                **{
                    k: context[k] for k in ("context_tokens", "passage_recall", "provenance_recall")
                },
                "initial": "first retrieval (stages.base)" if staged else "final (no refinement)",
            }
        )
    return pd.DataFrame(rows)
