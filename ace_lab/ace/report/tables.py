"""ACE's analysis tables with their statistics: ablations, the router controls, the router.

- :func:`ablation_table`: ablations with the oracle-best-fixed and shuffled-router controls,
  and :func:`ablation_report`, the ACE Table 3 layout notebook 07 shows and exports;
- :func:`router_distribution`, :func:`f1_change_by_topology`: Adaptive-ACE's router (Figure 2);
- :func:`router_confusion`, :func:`router_accuracy`: the router's labels against the data
  set's own question types under the proxy mapping of :data:`ace_lab.ace.analysis.PROXY_TOPOLOGY`.

What is specific to ACE's policies (topology order, topology → policy) is computed in
:mod:`ace_lab.ace.analysis`; this module selects a study's rows, pairs questions and adds the
intervals with the generic helpers of :mod:`ace_lab.eval.reporting.tables` and
:mod:`ace_lab.eval.statistics`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from ace_lab.ace import analysis
from ace_lab.ace.adapt import AdaptConfig
from ace_lab.ace.analysis import topology_rank
from ace_lab.ace.specs import at_budget, fixed_policy_runs
from ace_lab.eval.reporting.tables import (
    common_ids,
    main_table,
    method_rows,
    paired_tests,
    per_question,
    select_methods,
)
from ace_lab.eval.statistics import oracle_best_fixed, shuffled_policy_control
from ace_lab.eval.statistics.proportions import mean_interval
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS
from ace_lab.registry import head_of, spec

#: The runs whose per-question score can stand for each router topology's policy, preferred
#: first: POINT → ``ace-wo-breadth`` or ``ace-fixed:gap+depth+prune`` (the same policy) ...
TOPOLOGY_RUNS: dict[str, tuple[str, ...]] = {
    t: fixed_policy_runs(label) for t, label in analysis.topology_policy_labels().items()
}
#: The rows of :func:`ablation_report` after the configurations: the two router controls.
CONTROLS = ("oracle best fixed", "shuffled router")
#: Full-ACE's ablations, one component removed each (ACE Table 3).
ABLATIONS = ("ace-wo-breadth", "ace-wo-depth", "ace-wo-gap", "ace-wo-pruning")
#: Full-ACE's pruning ablation split in two (``ace-wo-pruning`` changes both halves): rows of
#: :func:`ablation_report` when a study has their records.
SPLIT_ABLATIONS = ("ace-wo-semantic-pruning", "ace-wo-report-drop")
#: The columns notebook 07 shows of :func:`ablation_report` (:func:`ablation_view` adds the
#: ``budget`` column where a table has one).
ABLATION_VIEW = ["method", "n", "EM", "F1 [95% CI]", "ΔF1 vs Full", "note"]
#: The adaptation budget every ACE name without ``:b<N>`` runs with (2,400 tokens).
DEFAULT_BUDGET = AdaptConfig().budget_tokens


def topology_methods(present: Iterable[str]) -> dict[str, str]:
    """Topology → the first of its :data:`TOPOLOGY_RUNS` that has results (else the
    ``ace-fixed:`` name, which a missing-run note then names)."""
    have = set(present)
    return {t: next((m for m in runs if m in have), runs[-1]) for t, runs in TOPOLOGY_RUNS.items()}


def ablation_methods(
    full: str = "ace-full",
    ablations: Sequence[str] = ABLATIONS,
    adaptive: str | Sequence[str] = "ace-adaptive",
) -> list[str]:
    """Every run :func:`ablation_report` reads: the configurations, the Adaptive-ACE runs
    (one name or several routers) and the fixed-policy runs of the shuffled-router control
    (:data:`TOPOLOGY_RUNS`)."""
    fixed = (m for runs in TOPOLOGY_RUNS.values() for m in runs)
    return list(dict.fromkeys([full, *ablations, *adaptive_runs(adaptive), *fixed]))


def adaptive_runs(adaptive: str | Sequence[str]) -> list[str]:
    """``adaptive`` as a list: one Adaptive-ACE run or several (one per router prompt)."""
    return [adaptive] if isinstance(adaptive, str) else list(adaptive)


def shuffled_label(adaptive: str, several: bool) -> str:
    """The shuffled-router row of ``adaptive``: plain with one Adaptive-ACE run, named after
    the run whose labels it permutes when a table has several."""
    return f"shuffled router ({adaptive})" if several else "shuffled router"


def shuffled_run(row: str) -> str | None:
    """The Adaptive-ACE run whose labels a :func:`shuffled_label` row permutes (``""`` for the
    plain row of a table with one run); None for any other row."""
    if row == "shuffled router":
        return ""
    if row.startswith("shuffled router (") and row.endswith(")"):
        return row.removeprefix("shuffled router (")[:-1]
    return None


def topology_runs_table() -> pd.DataFrame:
    """Which runs can stand for each router topology's policy (either one serves)."""
    return pd.DataFrame(
        [{"topology": t, "runs (either)": " or ".join(r)} for t, r in TOPOLOGY_RUNS.items()]
    )


# -------------------------------------------------------------------------------- router
def router_distribution(df: pd.DataFrame, method: str = "ace-adaptive") -> pd.DataFrame:
    """How often the router chose each topology (all four listed, zero counts included)."""
    select_methods(df, [method])
    sub = method_rows(df, method)
    labels = sub["topology"] if "topology" in sub else pd.Series(dtype=str)
    return analysis.router_distribution(labels, total=len(sub))


def _routed(df: pd.DataFrame, method: str) -> tuple[pd.Series, pd.Series]:
    """``method``'s question types and router labels, aligned per question."""
    select_methods(df, [method])
    sub = method_rows(df, method)
    types = sub["type"] if "type" in sub else pd.Series([None] * len(sub), index=sub.index)
    labels = sub["topology"] if "topology" in sub else pd.Series([None] * len(sub), index=sub.index)
    return types, labels


def router_confusion(df: pd.DataFrame, method: str = "ace-adaptive") -> pd.DataFrame:
    """The router's labels (``topology``) against the question types (``type``) of a study's
    ``method`` records: one row per type with its proxy topology, the count of each label and
    how many match the proxy (:func:`ace_lab.ace.analysis.router_confusion`)."""
    return analysis.router_confusion(*_routed(df, method))


def router_confusions(df: pd.DataFrame, methods: Sequence[str]) -> pd.DataFrame:
    """:func:`router_confusion` of each routed method in ``methods``, stacked with a
    ``method`` column first (one block per router prompt)."""
    blocks = [router_confusion(df, m).assign(method=m) for m in methods]
    if not blocks:
        return pd.DataFrame(columns=["method"])
    table = pd.concat(blocks, ignore_index=True)
    return table[["method", *[c for c in table.columns if c != "method"]]]


def router_accuracy(
    df: pd.DataFrame, methods: Sequence[str] = ("ace-adaptive",), *, seed: int = 0
) -> pd.DataFrame:
    """Per routed method: accuracy of the router under the proxy mapping with its 95%
    bootstrap interval over the questions whose type has a proxy, and ``classes``, the number
    of distinct labels given (one class means the router does not discriminate)."""
    rows = []
    for method in methods:
        types, labels = _routed(df, method)
        result = analysis.router_accuracy(types, labels)
        ci = mean_interval(analysis.router_hits(types, labels).to_numpy(), seed=seed)
        rows.append(
            {
                "method": method,
                **result,
                "accuracy_low": ci.low,
                "accuracy_high": ci.high,
                "accuracy [95% CI]": str(ci) if result["n"] else "",
            }
        )
    return pd.DataFrame(rows)


def f1_change_by_topology(
    df: pd.DataFrame, adaptive: str = "ace-adaptive", full: str = "ace-full"
) -> pd.DataFrame:
    """Adaptive minus Full F1 per router topology, on the questions both answered.

    Says where routing helps or hurts: a topology whose lighter policy loses F1 against the
    full policy is one where the router's choice costs accuracy. The last row is all routed
    questions together.
    """
    select_methods(df, [adaptive, full])
    routed = method_rows(df, adaptive).set_index("id")
    ada = per_question(df, adaptive, "f1")
    ful = per_question(df, full, "f1")
    ids = common_ids([ada, ful])
    return analysis.f1_change_by_topology(routed["topology"], ada, ful, ids)


# ------------------------------------------------------------------------------ ablation
def ablation_table(
    df: pd.DataFrame,
    methods: Sequence[str],
    fixed_methods: Sequence[str] | None = None,
    *,
    adaptive: str | Sequence[str] = "ace-adaptive",
    metric: str = "f1",
    n_permutations: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Ablations plus the two controls that say whether Adaptive-ACE's router earns its keep.

    Rows: each of ``methods`` (n, EM, F1 with interval); **oracle best fixed**, the fixed
    policy among ``fixed_methods`` with the highest mean F1 on their shared questions, chosen
    in hindsight (its name is in ``note``); **shuffled router**, Adaptive's per-question
    topology→policy assignment permuted ``n_permutations`` times (counts preserved), each
    question scored by the fixed-policy run of its assigned policy (:func:`topology_methods`);
    ``F1_sd`` is the spread over permutations. With several Adaptive-ACE runs (``adaptive`` a
    list, one per router prompt) each gets its own shuffled row (:func:`shuffled_label`).
    A control whose runs are missing is a row with
    a note saying which, so the table still renders.
    """
    present = set(df["method"])
    rows: list[dict[str, Any]] = []
    for method in methods:
        if method not in present:
            rows.append(_empty_row(method, "missing run"))
            continue
        row = main_table(df, [method]).iloc[0]
        rows.append(
            _empty_row(method, "") | {k: row[k] for k in ("n", "EM", "F1", "F1_low", "F1_high")}
        )
    rows.append(_oracle_row(df, fixed_methods or [], metric))
    adaptives = adaptive_runs(adaptive)
    for name in adaptives:
        label = shuffled_label(name, len(adaptives) > 1)
        rows.append(_shuffled_row(df, name, metric, n_permutations, seed, label))
    return pd.DataFrame(rows)


def _empty_row(method: str, note: str) -> dict[str, Any]:
    blank = dict.fromkeys(("EM", "F1", "F1_low", "F1_high", "F1_sd"), math.nan)
    return {"method": method, "n": 0, **blank, "note": note}


def _oracle_row(df: pd.DataFrame, fixed_methods: Sequence[str], metric: str) -> dict[str, Any]:
    present = set(df["method"])
    available = [m for m in fixed_methods if m in present]
    missing = [m for m in fixed_methods if m not in present]
    if not available:
        return _empty_row("oracle best fixed", "skipped: no fixed-policy runs")
    series = [per_question(df, m, metric) for m in available]
    ids = common_ids(series)
    if not ids:
        return _empty_row("oracle best fixed", "skipped: fixed runs share no question")
    scores = {m: s.loc[ids].to_numpy() for m, s in zip(available, series, strict=True)}
    best, score = oracle_best_fixed(scores)
    em = per_question(df, best, "em")
    note = f"{best} (best of {len(available)} in hindsight)"
    if missing:
        note += f"; missing runs: {', '.join(missing)}"
    row = _empty_row("oracle best fixed", note)
    em_ids = [i for i in ids if i in em.index]
    return row | {
        "n": len(ids),
        "F1": score,
        "EM": float(em.loc[em_ids].mean()) if em_ids else math.nan,
    }


def _shuffled_row(
    df: pd.DataFrame,
    adaptive: str,
    metric: str,
    n_permutations: int,
    seed: int,
    label: str = "shuffled router",
) -> dict[str, Any]:
    present = set(df["method"])
    if adaptive not in present:
        return _empty_row(label, f"skipped: no {adaptive} run")
    routed = method_rows(df, adaptive).set_index("id")["topology"].dropna()
    used = sorted(set(routed), key=topology_rank)
    runs = topology_methods(present)
    unknown = [t for t in used if t not in runs]
    needed = [runs[t] for t in used if t in runs]
    missing = [m for m in needed if m not in present]
    if unknown or missing or not used:
        why = f"missing runs: {', '.join(missing)}" if missing else f"topologies {unknown}"
        return _empty_row(label, f"skipped: {why if used else 'no routed question'}")
    scores = {t: per_question(df, runs[t], metric) for t in used}
    own = per_question(df, adaptive, metric)
    ids = common_ids([routed, own, *scores.values()])
    if not ids:
        return _empty_row(label, "skipped: policy runs share no routed question")
    mean, sd = shuffled_policy_control(
        {t: s.loc[ids].to_numpy() for t, s in scores.items()},
        [routed[i] for i in ids],
        n_permutations=n_permutations,
        seed=seed,
    )
    note = (
        f"{n_permutations} permutations of {adaptive}'s topologies; "
        f"{adaptive} {metric.upper()} on these questions {own.loc[ids].mean():.3f}"
    )
    return _empty_row(label, note) | {"n": len(ids), "F1": mean, "F1_sd": sd}


# ------------------------------------------------------------------------------- report
def f1_text(row: dict[str, Any]) -> str:
    """An ablation row's F1 as text: mean [95% CI], the shuffled router's ± sd over
    permutations, a bare mean without an interval (the oracle), empty when missing."""
    if pd.isna(row["F1"]):
        return ""
    if row["method"].startswith("shuffled router"):
        return f"{row['F1']:.3f} ± {row['F1_sd']:.3f} (sd over permutations)"
    if pd.isna(row["F1_low"]):
        return f"{row['F1']:.3f}"
    return f"{row['F1']:.3f} [{row['F1_low']:.3f}, {row['F1_high']:.3f}]"


def adaptation_budget(method: str) -> int | None:
    """The token budget of ``method``'s adaptation (None: not an ACE run, or no known name)."""
    try:
        return spec(method).config(AdaptConfig).budget_tokens
    except (KeyError, ValueError):
        return None


def extra_rows(
    full: str, ablations: Sequence[str], adaptives: Sequence[str], present: Iterable[str]
) -> tuple[list[str], list[str]]:
    """The rows :func:`ablation_report` adds when a study has their records, as (configurations,
    Adaptive-ACE runs): the :data:`SPLIT_ABLATIONS`, then Full-ACE, the ablations and the split
    ablations at the shared 1,500-token budget (``:b1500``); each Adaptive-ACE run at it."""
    listed = {full, *ablations, *adaptives}
    split = [m for m in SPLIT_ABLATIONS if m not in ablations]
    shared = [at_budget(m, CONTEXT_BUDGET_TOKENS) for m in [full, *ablations, *split]]
    have = set(present)
    configs = [m for m in dict.fromkeys([*split, *shared]) if m in have and m not in listed]
    routed = [at_budget(a, CONTEXT_BUDGET_TOKENS) for a in adaptives]
    return configs, [m for m in dict.fromkeys(routed) if m in have and m not in listed]


def _reference(full: str, method: str) -> str:
    """The Full-ACE run ``method`` is paired against: Full-ACE at ``method``'s budget, or
    ``full`` itself for Full-ACE at another budget (the budget's own effect)."""
    budget = adaptation_budget(method)
    if budget is None or budget == adaptation_budget(full):
        return full
    same = at_budget(full, budget)
    return full if same == method else same


def ablation_view(table: pd.DataFrame) -> list[str]:
    """The columns to show of an :func:`ablation_report` table: :data:`ABLATION_VIEW`, with
    ``budget`` after ``method`` where the table has it."""
    return [ABLATION_VIEW[0], "budget", *ABLATION_VIEW[1:]] if "budget" in table else ABLATION_VIEW


def ablation_report(
    df: pd.DataFrame,
    full: str = "ace-full",
    ablations: Sequence[str] = ABLATIONS,
    adaptive: str | Sequence[str] = "ace-adaptive",
    *,
    n_permutations: int = 1000,
) -> pd.DataFrame:
    """ACE Table 3: Full-ACE, its ablations, the two router controls and Adaptive-ACE (with
    several Adaptive-ACE runs, one per router prompt: each run after its shuffled control).

    Rows in that order (:func:`ablation_table`'s columns), plus ``F1 [95% CI]`` as text
    (:func:`f1_text`) and ``ΔF1 vs Full``, each run's paired F1 difference against Full-ACE
    with its interval (empty without both runs). The oracle's candidates are every fixed
    configuration present at Full-ACE's budget: ``full``, the ablations and any
    ``ace-fixed:*`` run.

    Runs of :func:`extra_rows` that the study has (the split pruning ablations, the
    configurations at the shared 1,500-token budget) follow the ablations and the Adaptive-ACE
    runs; each is paired against Full-ACE at its own budget (Full-ACE at 1,500 against
    ``full``). When a row's adaptation budget differs from the default 2,400 tokens, a
    ``budget`` column gives every configuration row's (tables without such rows are as before).
    """
    present = set(df["method"])
    adaptives = adaptive_runs(adaptive)
    more_configs, more_adaptives = extra_rows(full, ablations, adaptives, present)
    configs = [full, *ablations, *more_configs]
    several = len(adaptives) > 1
    routed = [m for a in adaptives for m in (shuffled_label(a, several), a)]
    order = [*configs, CONTROLS[0], *routed, *more_adaptives]
    own = adaptation_budget(full)
    fixed = sorted(
        m
        for m in present
        if (head_of(m) == "ace-fixed" or m in configs) and adaptation_budget(m) == own
    )
    runs = [*configs, *adaptives, *more_adaptives]
    table = ablation_table(df, runs, fixed, adaptive=adaptives, n_permutations=n_permutations)
    table = table.set_index("method").loc[order].reset_index()
    table["F1 [95% CI]"] = [f1_text(row) for row in table.to_dict("records")]
    table["ΔF1 vs Full"] = ""
    others = [m for m in runs if m in present and m != full]
    references: dict[str, list[str]] = {}
    for method in others:
        references.setdefault(_reference(full, method), []).append(method)
    for reference, methods in references.items():
        if reference in present:
            paired = paired_tests(df, reference, methods).set_index("method")["diff [95% CI]"]
            fill = table["method"].map(paired)
            table["ΔF1 vs Full"] = fill.where(fill.notna(), table["ΔF1 vs Full"])
    budgets = {m: adaptation_budget(m) for m in runs}
    if any(b not in (None, DEFAULT_BUDGET) for b in budgets.values()):
        column = table["method"].map(lambda m: budgets.get(m)).astype("Int64")
        table.insert(1, "budget", column)
    return table
