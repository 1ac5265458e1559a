"""Result tables from a study's records: pure functions of the results DataFrame, no LLM.

Every table takes the frame :func:`ace_lab.eval.runner.load_results` returns (one row per
question × method, columns as in :func:`ace_lab.eval.runner.record`) and returns a small
DataFrame, so notebooks, ``ace-lab report`` and the paper tables share one implementation:

- :func:`main_table`: EM/F1 with 95% bootstrap intervals and mean cost per method;
- :func:`paired_tests`: F1 differences against a baseline on shared questions;
- :func:`coverage_table`: ACE Table 5 (answer coverage before/after refinement, recovery);
- :func:`cost_table`: ACE Table 6b (per-query calls, tokens, time, input ratio);
- :func:`router_distribution`, :func:`f1_change_by_topology`: Adaptive-ACE's router;
- :func:`ablation_table`: ablations with the oracle-best-fixed and shuffled-router controls.

Comparisons between methods use the questions both answered (a partial run must not be
compared on a different question mix); per-method summaries use all of a method's rows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.ace.policy import TOPOLOGIES, TOPOLOGY_NAMES, topology_policy
from ace_lab.eval.metrics import coverage_and_recovery
from ace_lab.eval.stats import (
    Interval,
    bootstrap_ci,
    oracle_best_fixed,
    paired_bootstrap,
    permutation_test,
    shuffled_policy_control,
)
from ace_lab.methods.registry import METHODS, fixed_policy_runs

#: Per-query cost columns of a record, in table order.
COST_COLUMNS = ("retrieval_calls", "llm_calls", "input_tokens", "output_tokens", "wall_s")
#: The runs whose per-question score can stand for each router topology's policy, preferred
#: first: POINT → ``ace-wo-breadth`` or ``ace-fixed:gap+depth+prune`` (the same policy) ...
TOPOLOGY_RUNS: dict[str, tuple[str, ...]] = {
    t: fixed_policy_runs(topology_policy(t).label) for t in TOPOLOGIES
}


def topology_methods(present: Iterable[str]) -> dict[str, str]:
    """Topology → the first of its :data:`TOPOLOGY_RUNS` that has results (else the
    ``ace-fixed:`` name, which a missing-run note then names)."""
    have = set(present)
    return {t: next((m for m in runs if m in have), runs[-1]) for t, runs in TOPOLOGY_RUNS.items()}


# ---------------------------------------------------------------------------------- helpers
def _methods(df: pd.DataFrame, methods: Sequence[str] | None) -> list[str]:
    """``methods`` (all present, else KeyError), or every method present in registry order."""
    present = list(dict.fromkeys(df["method"])) if "method" in df else []
    if methods is None:  # the registry's order: baselines first, then ACE and its variants
        known = {name: i for i, name in enumerate(METHODS)}
        return sorted(present, key=lambda m: known.get(m, len(known)))
    missing = [m for m in methods if m not in present]
    if missing:
        raise KeyError(f"no results for {missing}; the frame has {present}")
    return list(methods)


def _rows(df: pd.DataFrame, method: str) -> pd.DataFrame:
    """One method's rows, one per question id (a duplicated id keeps its last record)."""
    sub = df[df["method"] == method]
    return sub.drop_duplicates("id", keep="last")


def _per_question(df: pd.DataFrame, method: str, column: str) -> pd.Series:
    """``column`` of ``method`` indexed by question id, questions without a value dropped."""
    sub = _rows(df, method)
    return sub.set_index("id")[column].dropna().astype(float)


def _common_ids(series: Sequence[pd.Series]) -> list[str]:
    """Ids present in every series, in the first one's (slice) order."""
    if not series:
        return []
    shared = set(series[0].index).intersection(*(set(s.index) for s in series[1:]))
    return [i for i in series[0].index if i in shared]


def _ci_text(ci: Interval) -> str:
    return f"{ci.mean:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def _mean(values: pd.Series) -> float:
    values = pd.to_numeric(values, errors="coerce").dropna()
    return float(values.mean()) if len(values) else math.nan


# -------------------------------------------------------------------------------- main table
def main_table(
    df: pd.DataFrame,
    methods: Sequence[str] | None = None,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per method: n, EM and F1 means with 95% bootstrap intervals, mean cost.

    EM/F1 average over questions with a gold answer; the intervals are percentile bootstraps
    (seeded, so a rerun prints the same numbers). Cost columns are per-query means; ``wall_s``
    is the cold-cache wall time (see ``cost_table``).
    """
    rows = []
    for method in _methods(df, methods):
        sub = _rows(df, method)
        row: dict[str, Any] = {"method": method, "n": len(sub)}
        for label, column in (("EM", "em"), ("F1", "f1")):
            values = pd.to_numeric(sub[column], errors="coerce").dropna()
            ci = bootstrap_ci(values.to_numpy(), n_resamples=n_resamples, seed=seed)
            row |= {
                label: ci.mean,
                f"{label}_low": ci.low,
                f"{label}_high": ci.high,
                f"{label} [95% CI]": _ci_text(ci),
            }
        row |= {column: _mean(sub[column]) for column in COST_COLUMNS if column in sub}
        if "wall_s" in sub:
            row["wall_s"] = _cold_wall(sub)["wall_s"]
        rows.append(row)
    return pd.DataFrame(rows)


def paired_tests(
    df: pd.DataFrame,
    baseline: str,
    methods: Sequence[str] | None = None,
    *,
    metric: str = "f1",
    n_resamples: int = 2000,
    n_permutations: int = 10000,
    seed: int = 0,
) -> pd.DataFrame:
    """Mean ``metric`` difference of each method vs ``baseline`` on the questions both have.

    Pairing per question removes the between-question variance; the interval is a paired
    bootstrap and the p-value a sign-flip permutation test (both seeded).
    """
    names = [m for m in _methods(df, methods) if m != baseline]
    _methods(df, [baseline])
    base = _per_question(df, baseline, metric)
    label = metric.upper()
    rows = []
    for method in names:
        other = _per_question(df, method, metric)
        ids = _common_ids([other, base])
        a, b = other.loc[ids].to_numpy(), base.loc[ids].to_numpy()
        boot = paired_bootstrap(a, b, n_resamples=n_resamples, seed=seed)
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
                "diff [95% CI]": f"{boot.mean_diff:+.3f} [{boot.low:+.3f}, {boot.high:+.3f}]",
                "p_bootstrap": boot.p_value,
                "p_permutation": permutation_test(a, b, n_permutations=n_permutations, seed=seed),
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ coverage
def coverage_table(df: pd.DataFrame, methods: Sequence[str] | None = None) -> pd.DataFrame:
    """ACE Table 5: gold coverage of the initial vs final context, and recovery.

    For ACE the initial context is its first retrieval (``base_has_answer``); a method with
    no refinement stage has one context, so its initial coverage is its final coverage and
    recovery is 0 (or None when nothing was uncovered). Yes/no questions are excluded.
    """
    rows = []
    for method in _methods(df, methods):
        sub = _rows(df, method)
        sub = sub[sub["context_has_answer"].notna()]
        staged = "base_has_answer" in sub and sub["base_has_answer"].notna().any()
        if staged:
            sub = sub[sub["base_has_answer"].notna()]
        final = [bool(v) for v in sub["context_has_answer"]]
        initial = [bool(v) for v in sub["base_has_answer"]] if staged else final
        result = coverage_and_recovery(initial, final)
        rows.append(
            {
                "method": method,
                **result,
                "initial": "first retrieval (stages.base)" if staged else "final (no refinement)",
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------- cost
def cost_table(
    df: pd.DataFrame,
    methods: Sequence[str] | None = None,
    reference: str = "hirag",
    *,
    common: bool = True,
) -> pd.DataFrame:
    """ACE Table 6b: per-query retrieval calls, LLM calls, tokens and wall time.

    ``wall_s`` is the mean over the ``wall_n`` answers made without any cached LLM call.
    ``server_cached_tokens`` is the mean input the LLM server reused from its own prompt cache
    (empty for runs recorded before it was kept): where it is large, ``wall_s`` is warm, e.g.
    a prompt sharing a long prefix with an earlier method's prompt on the same server.

    ``input_ratio`` is a method's mean input tokens over ``reference``'s, ``wall_ratio`` the
    same for ``wall_s`` (comparable only when the runs were timed under the same conditions).
    Tokens are the cold-cache cost, so the table does not depend on which answers were cached. With
    ``common`` the means are over the questions every listed method (and the reference, if
    present) answered, so a partial run does not shift a ratio by a different question mix;
    ``df.attrs["note"]`` says when the reference is missing or there is no shared question.
    """
    names = _methods(df, methods)
    present = set(df["method"])
    pool = names + ([reference] if reference in present and reference not in names else [])
    notes = []
    ids: list[str] | None = None
    if common:
        ids = _common_ids([_rows(df, m).set_index("id")["method"] for m in pool])
        if not ids:
            notes.append("no question is shared by all methods; means are per method")
            ids = None
    frames = {m: _rows(df, m) for m in pool}
    if ids is not None:
        frames = {m: f.set_index("id").loc[ids].reset_index() for m, f in frames.items()}
    ref_input = _mean(frames[reference]["input_tokens"]) if reference in frames else math.nan
    ref_wall = _cold_wall(frames[reference])["wall_s"] if reference in frames else math.nan
    if reference not in frames:
        notes.append(f"reference {reference!r} has no results; input_ratio is empty")
    rows = []
    for method in names:
        sub = frames[method]
        row: dict[str, Any] = {"method": method, "n": len(sub)}
        row |= {column: _mean(sub[column]) for column in COST_COLUMNS}
        row |= _cold_wall(sub)
        cached = sub.get("server_cached_tokens")
        row["server_cached_tokens"] = _mean(cached) if cached is not None else math.nan
        row["input_ratio"] = row["input_tokens"] / ref_input if ref_input else math.nan
        row["wall_ratio"] = row["wall_s"] / ref_wall if ref_wall else math.nan
        rows.append(row)
    table = pd.DataFrame(rows)
    table.attrs["note"] = "; ".join(notes)
    return table


def _cold_wall(sub: pd.DataFrame) -> dict[str, Any]:
    """Cold-cache wall time: a cached call takes milliseconds, so mixing raw times in would
    understate a method's latency. An answer counts with its ``cold_wall_s`` (cached calls at
    their recorded model time), or its ``wall_s`` when it made no cached call; answers with
    neither are left out (``wall_n`` says how many count)."""
    if "cache_hits" not in sub:
        return {"wall_s": _mean(sub["wall_s"]), "wall_n": len(sub)}
    fresh = sub["cache_hits"].fillna(0) == 0
    cold = sub["cold_wall_s"] if "cold_wall_s" in sub else pd.Series(index=sub.index, dtype=float)
    wall = cold.where(cold.notna(), sub["wall_s"].where(fresh))
    return {"wall_s": _mean(wall.dropna()), "wall_n": int(wall.notna().sum())}


# -------------------------------------------------------------------------------- router
def router_distribution(df: pd.DataFrame, method: str = "ace-adaptive") -> pd.DataFrame:
    """How often the router chose each topology (all four listed, zero counts included)."""
    _methods(df, [method])
    sub = _rows(df, method)
    labels = sub["topology"].fillna("(none)") if "topology" in sub else pd.Series(dtype=str)
    counts = labels.value_counts()
    order = list(TOPOLOGIES) + sorted(str(t) for t in counts.index if t not in TOPOLOGIES)
    total = len(sub)
    return pd.DataFrame(
        [
            {
                "topology": topology,
                "name": TOPOLOGY_NAMES.get(topology, ""),
                "count": int(counts.get(topology, 0)),
                "share": counts.get(topology, 0) / total if total else math.nan,
            }
            for topology in order
        ]
    )


def f1_change_by_topology(
    df: pd.DataFrame, adaptive: str = "ace-adaptive", full: str = "ace-full"
) -> pd.DataFrame:
    """Adaptive minus Full F1 per router topology, on the questions both answered.

    Says where routing helps or hurts: a topology whose lighter policy loses F1 against the
    full policy is one where the router's choice costs accuracy. The last row is all routed
    questions together.
    """
    _methods(df, [adaptive, full])
    routed = _rows(df, adaptive).set_index("id")
    ada = _per_question(df, adaptive, "f1")
    ful = _per_question(df, full, "f1")
    ids = _common_ids([ada, ful])
    topology = routed.loc[ids, "topology"].fillna("(none)")
    present = list(dict.fromkeys(topology))
    order = [t for t in TOPOLOGIES if t in present] + [t for t in present if t not in TOPOLOGIES]
    rows = []
    for label, chosen in [(t, [i for i in ids if topology[i] == t]) for t in order] + [
        ("all", ids)
    ]:
        a, f = ada.loc[chosen], ful.loc[chosen]
        rows.append(
            {
                "topology": label,
                "n": len(chosen),
                "F1_adaptive": float(a.mean()) if chosen else math.nan,
                "F1_full": float(f.mean()) if chosen else math.nan,
                "diff": float((a - f).mean()) if chosen else math.nan,
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ ablation
def ablation_table(
    df: pd.DataFrame,
    methods: Sequence[str],
    fixed_methods: Sequence[str] | None = None,
    *,
    adaptive: str = "ace-adaptive",
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
    ``F1_sd`` is the spread over permutations. A control whose runs are missing is a row with
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
    rows.append(_shuffled_row(df, adaptive, metric, n_permutations, seed))
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
    series = [_per_question(df, m, metric) for m in available]
    ids = _common_ids(series)
    if not ids:
        return _empty_row("oracle best fixed", "skipped: fixed runs share no question")
    scores = {m: s.loc[ids].to_numpy() for m, s in zip(available, series, strict=True)}
    best, score = oracle_best_fixed(scores)
    em = _per_question(df, best, "em")
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
    df: pd.DataFrame, adaptive: str, metric: str, n_permutations: int, seed: int
) -> dict[str, Any]:
    present = set(df["method"])
    if adaptive not in present:
        return _empty_row("shuffled router", f"skipped: no {adaptive} run")
    routed = _rows(df, adaptive).set_index("id")["topology"].dropna()
    used = sorted(set(routed), key=lambda t: TOPOLOGIES.index(t) if t in TOPOLOGIES else 99)
    runs = topology_methods(present)
    unknown = [t for t in used if t not in runs]
    needed = [runs[t] for t in used if t in runs]
    missing = [m for m in needed if m not in present]
    if unknown or missing or not used:
        why = f"missing runs: {', '.join(missing)}" if missing else f"topologies {unknown}"
        return _empty_row("shuffled router", f"skipped: {why if used else 'no routed question'}")
    scores = {t: _per_question(df, runs[t], metric) for t in used}
    own = _per_question(df, adaptive, metric)
    ids = _common_ids([routed, own, *scores.values()])
    if not ids:
        return _empty_row("shuffled router", "skipped: policy runs share no routed question")
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
    return _empty_row("shuffled router", note) | {"n": len(ids), "F1": mean, "F1_sd": sd}


# -------------------------------------------------------------------------------- export
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
