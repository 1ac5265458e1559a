"""RQ2, portability: one ArcRAG configuration on each graph construction (the paper's Table 5).

:func:`family_table` has a row per configuration — a method name without its family, budget
included (``arcrag``, ``arcrag:r1p1``, ``arcrag:strict+grammar+patterns+r1p1``,
``direct-cypher:grammar``) — × graph family it ran on: the schema-guided ``typed`` graph (with
provenance), the ``openie`` build (with provenance) and the paper's ``openie-bare`` view of it
(one label, one relationship type, no provenance). Each row has EM and F1 with their 95 %
bootstrap intervals, how many exact matches had an empty context (the model answered from what
it knows: a strict run's empty witness gives it nothing), the share of the context model-written
Cypher produced (records that say) and the witness size; each non-typed row is paired with the
same configuration on the typed graph over the questions both answered: ΔF1 (this family −
typed) with its paired-bootstrap interval and exact sign-flip p. The paper reads the typed −
bare gap as the combined effect of structure and provenance; an ``openie`` row beside a bare one
separates the two.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ace_lab.arc.names import FAMILIES
from ace_lab.arc.report.results import arc_rows
from ace_lab.eval.statistics import paired_bootstrap
from ace_lab.eval.statistics.proportions import mean_interval
from ace_lab.registry import MethodName, parse

#: The table's file stem in a study folder.
FAMILY_TABLE = "04_families"
FAMILY_COLUMNS = [
    "configuration",
    "family",
    "n",
    "EM",
    "EM [95% CI]",
    "F1",
    "F1 [95% CI]",
    "EM_empty_context",
    "context_from_model",
    "witness_edges",
    "n_paired",
    "ΔF1 vs typed [95% CI]",
    "p",
]


def _configuration(method: str) -> str:
    """``method`` without its graph family (its head and variant, budget included)."""
    parts = parse(method)
    return str(MethodName(parts.head, parts.variant))


def _stat_mean(cell: pd.DataFrame, key: str) -> float:
    values = [s[key] for s in cell.get("stats", []) if isinstance(s, Mapping) and key in s]
    return float(sum(values) / len(values)) if values else math.nan


def _scores(cell: pd.DataFrame, seed: int) -> dict[str, Any]:
    em = mean_interval(pd.to_numeric(cell["em"], errors="coerce").dropna(), seed=seed)
    f1 = mean_interval(pd.to_numeric(cell["f1"], errors="coerce").dropna(), seed=seed)
    return {
        "n": len(cell),
        "EM": em.mean,
        "EM [95% CI]": str(em),
        "F1": f1.mean,
        "F1 [95% CI]": str(f1),
        "EM_empty_context": _empty_context_hits(cell),
    }


def _empty_context_hits(cell: pd.DataFrame) -> int:
    """Exact matches whose context was empty (the model answered from what it knows)."""
    tokens = cell["context_tokens"] if "context_tokens" in cell else pd.Series(0, cell.index)
    empty = pd.to_numeric(tokens, errors="coerce").fillna(0) == 0
    return int(((pd.to_numeric(cell["em"], errors="coerce") == 1) & empty).sum())


def _against_typed(cell: pd.DataFrame, typed: pd.DataFrame, seed: int) -> dict[str, Any]:
    """ΔF1 of ``cell`` against the typed row on the questions both answered."""
    pairs = cell[["id", "f1"]].merge(typed[["id", "f1"]], on="id", suffixes=("", "_typed"))
    if pairs.empty:
        return {"n_paired": 0, "ΔF1 vs typed [95% CI]": "", "p": math.nan}
    a, b = (pd.to_numeric(pairs[c], errors="coerce") for c in ("f1", "f1_typed"))
    d = paired_bootstrap(a, b, seed=seed)
    return {"n_paired": d.n, "ΔF1 vs typed [95% CI]": d.interval, "p": d.p_value}


def family_table(df: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """One row per ArcRAG configuration × graph family (module doc)."""
    sub = arc_rows(df)
    lines = sub["method"].map(lambda m: _configuration(str(m))) if len(sub) else sub.index
    rows = []
    for config, line in sub.groupby(lines, sort=True):
        typed = line[line["family"] == "typed"]
        for family in FAMILIES:
            cell = line[line["family"] == family]
            if cell.empty:
                continue
            row: dict[str, Any] = {"configuration": config, "family": family}
            row |= _scores(cell, seed)
            row["context_from_model"] = _stat_mean(cell, "context_from_model")
            row["witness_edges"] = _stat_mean(cell, "witness_edges")
            if family != "typed" and not typed.empty:
                row |= _against_typed(cell, typed, seed)
            rows.append(row)
    return pd.DataFrame(rows, columns=FAMILY_COLUMNS)
