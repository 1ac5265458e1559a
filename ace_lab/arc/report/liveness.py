"""ArcRAG's adaptive decisions per question, for the liveness tables (:mod:`ace_lab.eval.liveness`).

:func:`arc_decisions` reads one ArcRAG record into its decisions; what a configuration cannot
vary is left out (None), so a mechanism is called inert only where it could have acted:

- ``passes used`` and ``sufficiency verdicts`` (each pass's judgement in order: ``sufficient``,
  ``follow-up``, ``no follow-up`` or ``unusable``; records written before the model's own
  verdict was kept read ``sufficient`` for a ``no follow-up``): only where the pass budget
  allows a second pass;
- ``stop reason``: why the loop ended (``sufficient``, ``pass cap``, …), with those two;
- ``refinements``: model-written Cypher attempts after a subplan's first (the retries used):
  only where the retry budget allows more than one attempt;
- ``acceptable-query rate``: the share of model-written attempts that were acceptable (binned:
  ``0``, ``some``, ``all``), where the model wrote any.

Records written before typed payloads give the same decisions from their ``stats`` column and
step names: every judgement but a loop's last asked a follow-up (the loop went on), and the last
one's verdict is the stop reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ace_lab.arc.budget import Budget
from ace_lab.arc.specs import REPORT
from ace_lab.arc.steps import ArcDetails, CypherExecution, SufficiencyCheck
from ace_lab.eval.liveness import Decisions, method_liveness, missing
from ace_lab.eval.studies.record import record_details, step_payloads
from ace_lab.registry import spec

#: The stop reason of each last judgement (``ace_lab.arc.answer.stop_reason``), read back as
#: its verdict.
STOP_VERDICTS = {
    "sufficient": "sufficient",
    "no follow-up": "no follow-up",
    "judgement unusable": "unusable",
}


def budget_of(rec: Mapping[str, Any]) -> Budget:
    """The retries × passes budget a record ran under: its details' label, else its method's."""
    details = record_details(rec)
    if isinstance(details, ArcDetails) and details.budget:
        return Budget.parse(details.budget)
    return spec(str(rec["method"])).config(Budget)


def verdict(check: SufficiencyCheck) -> str:
    """One judgement as the table shows it: ``sufficient``, ``follow-up``, ``no follow-up``
    (judged insufficient with no question to ask, which also stops the loop) or ``unusable``."""
    if check.fallback:
        return "unusable"
    if not check.sufficient:
        return "follow-up"
    return "no follow-up" if check.said_sufficient is False else "sufficient"


def _verdicts(rec: Mapping[str, Any], stop: Any) -> tuple[str, ...]:
    checks = [p for p in step_payloads(rec) if isinstance(p, SufficiencyCheck)]
    if checks:
        return tuple(map(verdict, checks))
    steps = rec.get("steps") if isinstance(rec.get("steps"), list | tuple) else []
    judged = sum(1 for s in steps if str(s.get("name", "")).startswith("judge:"))
    if not judged:
        return ()
    last = STOP_VERDICTS.get(str(stop), "follow-up")  # "pass cap": the last one went on too
    return ("follow-up",) * (judged - 1) + (last,)


def _refinements(rec: Mapping[str, Any], stats: Mapping[str, Any]) -> int | None:
    runs = [p for p in step_payloads(rec) if isinstance(p, CypherExecution)]
    if runs:
        return sum(a.refined for run in runs for a in run.attempts if not a.templated)
    queries, firsts = stats.get("cypher_queries"), stats.get("written_subplans")
    return None if missing(queries) or missing(firsts) else int(queries) - int(firsts)


def acceptable_bin(rate: float) -> str:
    """``0``, ``some`` or ``all`` of the model-written attempts acceptable."""
    return "0" if rate <= 0 else "all" if rate >= 1 else "some"


def arc_decisions(rec: Mapping[str, Any]) -> Decisions | None:
    """One ArcRAG record's decisions (the module docstring lists them); None for a record
    without ArcRAG's ``stats``."""
    stats = rec.get("stats")
    if not isinstance(stats, Mapping) or "passes_used" not in stats:
        return None
    budget, stop = budget_of(rec), stats.get("stop_reason")
    written = stats.get("cypher_queries") or 0
    rate = stats.get("acceptable_rate")
    return {
        "passes used": stats["passes_used"] if budget.passes > 1 else None,
        "sufficiency verdicts": _verdicts(rec, stop) if budget.passes > 1 else None,
        "stop reason": stop if budget.passes > 1 else None,
        "refinements": _refinements(rec, stats) if budget.retries > 1 else None,
        "acceptable-query rate": acceptable_bin(rate) if written and not missing(rate) else None,
    }


def is_arc(method: str) -> bool:
    """Whether ``method``'s records are ArcRAG's (its ablations and Direct-Cypher included)."""
    try:
        return spec(method).report == REPORT
    except (KeyError, ValueError):  # a name this registry no longer knows
        return False


def arc_liveness(frame: pd.DataFrame) -> pd.DataFrame:
    """The liveness table (:func:`~ace_lab.eval.liveness.method_liveness`) of every ArcRAG
    method of a study's records."""
    if frame.empty:
        return method_liveness(frame, arc_decisions)
    methods = [m for m in dict.fromkeys(frame["method"]) if is_arc(m)]
    return method_liveness(frame, arc_decisions, methods)


#: What ``ace-lab liveness`` and the docs call for this report's methods of a study.
LIVENESS_TABLE = arc_liveness
