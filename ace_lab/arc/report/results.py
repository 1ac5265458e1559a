"""ArcRAG's result tables and figure, read from a study's records (no LLM, no graph).

- :func:`budget_grid` — the paper's Table 13 analogue: each configuration (``arcrag``,
  ``arcrag-explorer``, ``arcrag-generator``, ``direct-cypher``, each with its switches, e.g.
  ``arcrag:strict``) × graph family × retries × passes, with EM and F1 and their 95 %
  bootstrap intervals, and the cost of the cell as if it had run alone (cold-cache LLM calls
  and tokens, seconds). Budgets never reach a prompt, so a larger cell replays a smaller one's
  calls from the cache; ``cache_hit_share`` shows how much.
- :func:`pooled_budget_grid` — the same grid over several studies' records pooled (the paper's
  Table 13 is a stratified sample from two data sets); ``slices`` names where a cell's
  questions came from.
- Both keep, per study, only the questions every cell of a configuration × family answered
  (:func:`paired_questions`), so a line's cells are paired and differ only in their budget.
- :func:`grid_figure` — the Figure 2 analogue: EM against retries × passes (log scale), one
  line per configuration, one panel per family (two columns wide, display names).
- :func:`token_split` — the Appendix C analogue: tokens per record by family and where they go
  (the context the answer is composed from, the answers, Cypher and plans, explorer notes,
  sufficiency judgements), from the per-step tokens the records keep.
- :func:`cypher_quality` — per method, the share of generated Cypher that ran (valid) and that
  was acceptable, over all attempts and at the first attempt, and (records that say) the share
  of the context from model-written Cypher, the scan template and the fallback.

A record is a row of ``eval.study.results_frame``: ``method``, ``em``, ``f1``, ``stats`` (the
column of :class:`~ace_lab.arc.steps.ArcDetails`), ``steps`` and the cost columns. A record
keeps each step's name and cost, not its payload: a step's kind (:func:`ace_lab.trace.step_kind`)
says where its tokens go.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from ace_lab.arc.budget import Budget
from ace_lab.arc.names import ARC_HEADS, SWITCHES
from ace_lab.eval.metrics.context_stats import ORIGIN_COLUMNS
from ace_lab.eval.statistics.proportions import mean_interval
from ace_lab.registry import head_of, parse, spec
from ace_lab.trace import step_kind
from ace_lab.viz.names import FAMILY_NAMES, display_name
from ace_lab.viz.palette import method_colours
from ace_lab.viz.sizes import paper_figure, paper_style

#: Where an ArcRAG record's tokens go: step kind → category (the rest: "other").
TOKEN_CATEGORIES: dict[str, str] = {
    "plan": "Cypher and plans",  # rewrite, root planner, anchor binding
    "retrieve": "Cypher and plans",  # search phrases
    "cypher": "Cypher and plans",  # generated and refined queries
    "explore": "explorer notes",
    "judge": "sufficiency",
}
#: The answer step's kind: its prompt is the composed context, its completion the answer.
ANSWER_KIND = "generate"
#: Sideways factor between configurations in :func:`grid_figure` (x is on a log scale).
DODGE = 1.06
TOKEN_ORDER = ("context", "answers", "Cypher and plans", "explorer notes", "sufficiency", "other")


def arc_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The ArcRAG-family records of ``df`` with their configuration, family and budget; a
    composition over ArcRAG's evidence (``arcrag>ace-full``) is ACE's record, not ArcRAG's."""
    if df.empty or "method" not in df:
        sub = df.iloc[0:0]
    else:
        sub = df[df["method"].map(_is_arc_record)].copy()
    if sub.empty:
        return sub.assign(configuration=[], family=[], retries=[], passes=[])
    specs = [spec(str(m)) for m in sub["method"]]
    sub["configuration"] = [configuration(s.name) for s in specs]
    sub["family"] = [s.family for s in specs]
    sub["retries"] = [s.config(Budget).retries for s in specs]
    sub["passes"] = [s.config(Budget).passes for s in specs]
    return sub


def _is_arc_record(method: Any) -> bool:
    return head_of(str(method)) in ARC_HEADS and not parse(str(method)).policy


def configuration(name: str) -> str:
    """The line of the budget grid ``name`` belongs to: its head and its switches, without the
    budget (``arcrag:strict+r3p5`` → ``arcrag:strict``; ``arcrag:r3p5`` → ``arcrag``)."""
    parts = parse(name)
    switches = [t for t in parts.variant.split("+") if t in SWITCHES]
    return parts.head + (f":{'+'.join(switches)}" if switches else "")


def _ci(values: pd.Series, seed: int) -> tuple[float, float, float]:
    ci = mean_interval(pd.to_numeric(values, errors="coerce").dropna().to_numpy(), seed=seed)
    return ci.mean, ci.low, ci.high


def _mean(values: Any) -> float:
    x = pd.to_numeric(pd.Series(values), errors="coerce").dropna()
    return float(x.mean()) if len(x) else math.nan


def _stat(sub: pd.DataFrame, key: str) -> list[Any]:
    return [s.get(key) for s in sub["stats"] if isinstance(s, Mapping)] if "stats" in sub else []


def paired_questions(sub: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`arc_rows` whose question every budget cell of their configuration ×
    family answered (per ``study`` where the rows carry one), so the cells of one line differ
    only in their budget: a default-budget run over the whole slice would otherwise put other
    questions into its cell than the stratified sample the smaller budgets ran on."""
    if sub.empty or "id" not in sub:
        return sub
    sub = sub.reset_index(drop=True)
    lines = [k for k in ("study", "configuration", "family") if k in sub]
    keep = pd.Series(False, index=sub.index)
    for _, line in sub.groupby(lines, sort=False):
        cells = [set(cell["id"]) for _, cell in line.groupby(["retries", "passes"])]
        keep[line.index] = line["id"].isin(set.intersection(*cells))
    return sub[keep]


def budget_grid(df: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """One row per configuration × family × retries × passes over :func:`paired_questions`
    (see the module docstring)."""
    return _grid_rows(paired_questions(arc_rows(df)), seed)


def _grid_rows(sub: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The grid's rows over ArcRAG rows already paired by :func:`paired_questions`."""
    rows = []
    keys = ["configuration", "family", "retries", "passes"]
    for (config, family, retries, passes), cell in sub.groupby(keys, sort=True):
        em, em_low, em_high = _ci(cell["em"], seed)
        f1, f1_low, f1_high = _ci(cell["f1"], seed)
        calls = pd.to_numeric(cell.get("llm_calls"), errors="coerce").sum()
        hits = pd.to_numeric(cell.get("cache_hits"), errors="coerce").sum()
        rows.append(
            {
                "configuration": config,
                "family": family,
                "retries": int(retries),
                "passes": int(passes),
                "n": len(cell),
                "EM": em,
                "EM_low": em_low,
                "EM_high": em_high,
                "EM [95% CI]": f"{em:.3f} [{em_low:.3f}, {em_high:.3f}]",
                "F1": f1,
                "F1 [95% CI]": f"{f1:.3f} [{f1_low:.3f}, {f1_high:.3f}]",
                "llm_calls": _mean(cell.get("llm_calls")),
                "input_tokens": _mean(cell.get("input_tokens")),
                "output_tokens": _mean(cell.get("output_tokens")),
                "cold_s": _mean(cell.get("cold_wall_s")),
                "passes_used": _mean(_stat(cell, "passes_used")),
                "cache_hit_share": float(hits / calls) if calls else math.nan,
            }
        )
    return pd.DataFrame(rows)


def pooled_budget_grid(records: Mapping[str, pd.DataFrame | None], seed: int = 0) -> pd.DataFrame:
    """:func:`budget_grid` over the ArcRAG records of several studies (name → records) pooled
    per cell, with ``slices``: the studies that cell's questions came from (a cell one study
    lacks, e.g. a family not built for it, holds only the others' questions)."""
    frames = [arc_rows(df).assign(study=name) for name, df in records.items() if df is not None]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return budget_grid(pd.DataFrame())
    pooled = paired_questions(pd.concat(frames, ignore_index=True))
    keys = ["configuration", "family", "retries", "passes"]
    slices = pooled.groupby(keys, sort=True)["study"].agg(lambda s: ", ".join(sorted(set(s))))
    grid = _grid_rows(pooled, seed)
    return grid.merge(slices.rename("slices").reset_index(), on=keys, how="left")


@paper_style()
def grid_figure(grid: pd.DataFrame, title: str = "") -> plt.Figure:
    """EM (with its interval) against retries × passes, log scale; a panel per family, a
    configuration the same colour in every panel and named once, in a legend below them. The x
    ticks are the budgets the grid has, written whole (a log axis spanning under a decade would
    otherwise label its minor ticks, over each other)."""
    families = list(dict.fromkeys(grid["family"])) if not grid.empty else ["typed"]
    configs = list(dict.fromkeys(grid["configuration"])) if not grid.empty else []
    colours = method_colours(configs)
    fig, axes = paper_figure(
        2,
        2.4 + 0.16 * math.ceil(len(configs) / 3),
        ncols=len(families),
        squeeze=False,
        sharey=True,
        layout="constrained",
    )
    budgets = sorted({int(b) for b in grid["retries"] * grid["passes"]}) if configs else [1]
    for ax, family in zip(axes[0], families, strict=True):
        part = grid[grid["family"] == family] if not grid.empty else grid
        groups = list(part.groupby("configuration", sort=False)) if not part.empty else []
        for i, (config, lines) in enumerate(groups):
            lines = lines.assign(budget=lines["retries"] * lines["passes"]).sort_values("budget")
            err = np.vstack([lines["EM"] - lines["EM_low"], lines["EM_high"] - lines["EM"]])
            # equal cells would hide each other: each configuration is nudged sideways a little
            dodge = DODGE ** (i - (len(groups) - 1) / 2)
            ax.errorbar(
                lines["budget"] * dodge,
                lines["EM"],
                yerr=err,
                marker="o",
                markersize=3,
                capsize=1.5,
                elinewidth=0.7,
                color=colours[config],
                label=display_name(config),
            )
        ax.set_xscale("log")
        ax.set_xticks(budgets, [str(b) for b in budgets])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlim(budgets[0] / 1.6, budgets[-1] * 1.6)
        ax.set_ylim(-0.05, 1.05)
        ax.set_title(FAMILY_NAMES.get(family, family))
        if part.empty:
            ax.text(0.5, 0.5, "no ArcRAG records", ha="center", transform=ax.transAxes)
    axes[0][0].set_ylabel("EM")
    # under the middle panel, not the figure: a figure label would share the legend's place
    axes[0][len(families) // 2].set_xlabel("retries × passes (log scale; configurations dodged)")
    if title:
        fig.suptitle(title)
    if configs:
        handles = {h.get_label(): h for ax in axes[0] for h in ax.get_legend_handles_labels()[0]}
        fig.legend(
            list(handles.values()),
            list(handles),
            loc="outside lower center",
            ncols=3,
            frameon=False,
        )
    return fig


def record_tokens(steps: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Tokens (prompt + completion) of one record by category; NaN when the record predates
    per-step tokens."""
    if not steps or not any("prompt_tokens" in s for s in steps):
        return dict.fromkeys(TOKEN_ORDER, math.nan)
    out = dict.fromkeys(TOKEN_ORDER, 0.0)
    for step in steps:
        kind = step_kind(str(step.get("name", "")))
        prompt, completion = step.get("prompt_tokens", 0), step.get("completion_tokens", 0)
        if kind == ANSWER_KIND:
            out["context"] += prompt
            out["answers"] += completion
        else:
            out[TOKEN_CATEGORIES.get(kind, "other")] += prompt + completion
    return out


def token_split(df: pd.DataFrame) -> pd.DataFrame:
    """Mean tokens per record of each ArcRAG method by category, their total and shares."""
    sub = arc_rows(df)
    rows = []
    for method, group in sub.groupby("method", sort=False):
        per = pd.DataFrame([record_tokens(steps) for steps in group["steps"]])
        means = per.mean(skipna=True)
        total = float(means.sum()) if per.notna().any().any() else math.nan
        row: dict[str, Any] = {
            "method": method,
            "family": group["family"].iloc[0],
            "n": int(per.notna().all(axis=1).sum()),
        }
        for category in TOKEN_ORDER:
            row[category] = float(means.get(category, math.nan))
        row["total"] = total
        for category in TOKEN_ORDER:
            row[f"{category} share"] = row[category] / total if total else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def cypher_quality(df: pd.DataFrame) -> pd.DataFrame:
    """Per method: generated Cypher per question, valid and acceptable shares overall and at the
    first attempt (attempt-weighted over the method's questions), passes and witness size."""
    sub = arc_rows(df)
    rows = []
    for method, group in sub.groupby("method", sort=False):
        stats = [s for s in group["stats"] if isinstance(s, Mapping)]
        attempts = [s.get("cypher_queries", 0) for s in stats]
        # first attempts are weighted by the subplans the model wrote Cypher for
        firsts = [s.get("written_subplans", s.get("subplans", 0)) for s in stats]

        def weighted(key: str, weights: list[int], stats: list[Mapping[str, Any]] = stats) -> float:
            total = sum(weights)
            if not total:
                return math.nan
            return sum(s.get(key, 0.0) * w for s, w in zip(stats, weights, strict=True)) / total

        rows.append(
            {
                "method": method,
                "family": group["family"].iloc[0],
                "n": len(stats),
                "cypher_per_q": _mean(attempts),
                "valid": weighted("valid_rate", attempts),
                "acceptable": weighted("acceptable_rate", attempts),
                "first_valid": weighted("first_valid_rate", firsts),
                "first_acceptable": weighted("first_acceptable_rate", firsts),
                "passes_used": _mean([s.get("passes_used") for s in stats]),
                "witness_edges": _mean([s.get("witness_edges") for s in stats]),
                **{c: _mean([s.get(c) for s in stats if c in s]) for c in ORIGIN_COLUMNS},
            }
        )
    table = pd.DataFrame(rows)
    if table.empty or table[ORIGIN_COLUMNS[0]].notna().any():
        return table
    # no record says where its context came from: the table stays as it was before they did
    return table.drop(columns=list(ORIGIN_COLUMNS))
