"""Tables of evidence-only studies: what each method put in its context, at each budget.

An evidence-only record (``ace-lab run --evidence-only``) stops at the method's final context,
so it is scored without a reader or a judge (:mod:`ace_lab.eval.metrics.evidence`): answer
coverage, supporting-passage recall, supporting-fact recall, the context's size and the LLM
tokens the method spent to obtain it. Answered records carry the same columns, so these tables
read either kind.

- :func:`evidence_table`: one row per method, each metric's mean with its 95 % interval
  (Wilson for a 0/1 metric such as coverage, the bootstrap for a recall);
- :func:`budget_curves`: the metrics of every method at every budget of a sweep
  (``ace-lab run --budgets``: the same method named with ``b300``, ``b600``, …);
- :func:`budget_auc`: the area under each method's curve, per question, normalised to the
  budget range (a method that covers a question from the smallest budget on scores 1), with
  the paired difference against a reference method, its exact sign-flip p, Holm over the
  table and the difference the comparison could detect at its n.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ace_lab.eval.metrics.context_stats import mean
from ace_lab.eval.metrics.table import METRICS
from ace_lab.eval.statistics import paired_bootstrap
from ace_lab.eval.statistics.exact import holm
from ace_lab.eval.statistics.power import TARGET_DIFF, min_detectable_difference, pairs_needed
from ace_lab.eval.statistics.proportions import mean_interval
from ace_lab.methods.names import parse
from ace_lab.registry.budget import split_budget

#: The evidence metrics a table shows with an interval, in order (record columns).
EVIDENCE_METRICS = ("answer_coverage", "passage_recall", "supporting_fact_recall")
#: The cost of a context: its size and the LLM tokens spent to obtain it (means).
EVIDENCE_COSTS = ("context_tokens", "context_llm_tokens")
#: The label of each metric in tables and figures (the metrics table's).
METRIC_LABELS = {name: METRICS[name].label for name in (*EVIDENCE_METRICS, *EVIDENCE_COSTS)}


def metric_values(records: pd.DataFrame, metric: str) -> pd.Series:
    """``metric`` per question of ``records`` as floats, questions without a value dropped
    (coverage of a record written before ``answer_coverage`` existed: ``context_has_answer``)."""
    values = records.get(metric)
    if metric == "answer_coverage" and "context_has_answer" in records:
        older = records["context_has_answer"]
        values = older if values is None else values.where(values.notna(), older)
    if values is None:
        return pd.Series(dtype=float)
    values = pd.to_numeric(values.map(_number), errors="coerce")
    return values.set_axis(records["id"]).dropna() if "id" in records else values.dropna()


def _number(value: object) -> float:
    if isinstance(value, bool):
        return float(value)
    return value if isinstance(value, int | float) else math.nan  # type: ignore[return-value]


def evidence_table(df: pd.DataFrame, methods: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per method (``methods``' order, else the frame's): n, each of
    :data:`EVIDENCE_METRICS` as ``mean [low, high]`` and :data:`EVIDENCE_COSTS` as means."""
    rows = []
    for method in methods or list(dict.fromkeys(df["method"])):
        records = df[df["method"] == method].drop_duplicates("id", keep="last")
        row: dict[str, object] = {"method": method, "n": len(records)}
        for metric in EVIDENCE_METRICS:
            values = metric_values(records, metric)
            row[metric] = str(mean_interval(values.to_numpy())) if len(values) else ""
        for cost in EVIDENCE_COSTS:
            row[cost] = round(mean(records.get(cost)), 1)
        rows.append(row)
    return pd.DataFrame(rows, columns=["method", "n", *EVIDENCE_METRICS, *EVIDENCE_COSTS])


def budget_of(method: str) -> tuple[str, int | None]:
    """A method name without its ``b<N>`` token, and N: ``naive:b600`` → (``naive``, 600);
    an ACE name's budget is in its variant the same way (``ace-full:b600``)."""
    base, tokens = split_budget(parse(method))
    return str(base), tokens


def budget_curves(df: pd.DataFrame, metrics: Sequence[str] = EVIDENCE_METRICS) -> pd.DataFrame:
    """Long table of a sweep: one row per (method, budget, metric) with n and the mean, for
    every record whose method names a budget."""
    rows = []
    for method, records in df.groupby("method", sort=False):
        base, tokens = budget_of(str(method))
        if tokens is None:
            continue
        records = records.drop_duplicates("id", keep="last")
        for metric in metrics:
            values = metric_values(records, metric)
            if len(values):
                rows.append(
                    {
                        "method": base,
                        "budget": tokens,
                        "metric": metric,
                        "n": len(values),
                        "mean": float(values.mean()),
                        "context_tokens": mean(records.get("context_tokens")),
                    }
                )
    frame = pd.DataFrame(
        rows, columns=["method", "budget", "metric", "n", "mean", "context_tokens"]
    )
    return frame.sort_values(["metric", "method", "budget"], kind="stable").reset_index(drop=True)


def per_question_auc(df: pd.DataFrame, method: str, metric: str) -> pd.Series:
    """Per question id, the area under ``metric`` against the budgets ``method`` was run at
    (trapezoids over the budgets, divided by the budget range so it lies in the metric's range);
    only questions with a value at every one of its budgets. Empty below two budgets."""
    by_budget: dict[int, pd.Series] = {}
    for name, records in df.groupby("method", sort=False):
        base, tokens = budget_of(str(name))
        if base == method and tokens is not None:
            by_budget[tokens] = metric_values(records.drop_duplicates("id", keep="last"), metric)
    if len(by_budget) < 2:
        return pd.Series(dtype=float)
    budgets = sorted(by_budget)
    grid = pd.concat([by_budget[b] for b in budgets], axis=1, join="inner")
    xs = np.asarray(budgets, dtype=float)
    heights = grid.to_numpy(dtype=float)
    widths = np.diff(xs)
    area = ((heights[:, 1:] + heights[:, :-1]) / 2 * widths).sum(axis=1) / (xs[-1] - xs[0])
    return pd.Series(area, index=grid.index)


def budget_auc(
    df: pd.DataFrame, metric: str, reference: str = "naive", methods: Sequence[str] | None = None
) -> pd.DataFrame:
    """Area under each method's ``metric``-against-budget curve with its interval, and the
    paired difference from ``reference`` over the questions both have: bootstrap interval,
    sign-flip p (exact up to 20 non-zero differences), Holm over the table's comparisons, the
    detectable difference at that n (paired t, power 0.8) and the questions 0.05 needs."""
    bases = methods or list(dict.fromkeys(b for b, t in map(budget_of, df["method"]) if t))
    aucs = {m: per_question_auc(df, m, metric) for m in bases}
    aucs = {m: a for m, a in aucs.items() if len(a)}
    ref = aucs.get(reference, pd.Series(dtype=float))
    rows = []
    for method, auc in aucs.items():
        row: dict[str, object] = {"method": method, "metric": metric, "n": len(auc)}
        row["auc [95% CI]"] = str(mean_interval(auc.to_numpy()))
        shared = [i for i in auc.index if i in ref.index] if method != reference else []
        if len(shared) >= 2:
            a, b = auc.loc[shared].to_numpy(), ref.loc[shared].to_numpy()
            paired = paired_bootstrap(a, b)
            sd = float(np.std(a - b, ddof=1))
            row |= {
                "n_paired": len(shared),
                f"diff vs {reference} [95% CI]": paired.interval,
                "p_sign_flip": paired.p_value,
                "mde": min_detectable_difference(sd, len(shared)),
                f"n_for_+{TARGET_DIFF}": pairs_needed(sd),
            }
        rows.append(row)
    table = pd.DataFrame(rows)
    for count in ("n_paired", f"n_for_+{TARGET_DIFF}"):
        if count in table:
            table[count] = pd.to_numeric(table[count]).round().astype("Int64")
    if "p_sign_flip" in table:
        tested = table["p_sign_flip"].notna()
        table.loc[tested, "p_holm"] = holm(table.loc[tested, "p_sign_flip"].tolist())
    return table
