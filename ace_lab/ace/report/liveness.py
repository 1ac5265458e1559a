"""ACE's adaptive decisions per question, for the liveness tables (:mod:`ace_lab.eval.liveness`).

:func:`ace_decisions` reads one ACE record (a study's results row) into its decisions:

- ``route``: the topology the router chose (Adaptive-ACE only), and ``router fallback``;
- ``planner fallback``: whether the gap plan was unusable (policies with gap diagnosis only);
- ``branches issued``: which branch retrievals ran (``depth``, ``breadth``, ``none``);
- ``items dropped`` (binned) and ``drop reasons`` (the kinds of reason, numbers removed): what
  the task-conditioned adaptation removed; only records whose ``adapt`` step kept its typed
  ``Selection`` (older records did not);
- ``recovery``: of the questions whose base context lacked the gold answer, whether the
  adapted context has it (``recovered``) or not (the paper's Table 5 recovery). It is a QA
  measure: :func:`ace_liveness` leaves it out of a study whose task is another (a
  sentence-long gold answer never occurs in a context verbatim).

Records written before typed payloads still give the route (``topology``), the branches (the
step names) and recovery (``base_has_answer``, ``context_has_answer``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ace_lab.ace.policy import BRANCHES
from ace_lab.ace.specs import REPORT
from ace_lab.ace.steps import AceDetails
from ace_lab.eval.liveness import Decisions, method_liveness, missing, study_task
from ace_lab.eval.studies.record import record_details, step_payloads
from ace_lab.registry import spec
from ace_lab.steps import Selection

#: Upper ends of the bins of ``items dropped`` (a count per question has too many values).
DROP_BINS = (0, 5, 10)
#: How a drop reason begins (``ace.adapt``) → the name the table gives its kind.
REASON_KINDS = (
    ("qa profile", "report drop"),
    ("semantic pruning", "semantic pruning"),
    ("token budget", "token budget"),
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_BRANCH_STEPS = {f"retrieve:{branch}": branch for branch in BRANCHES}


def dropped_bin(count: int) -> str:
    """``0``, ``1–5``, ``6–10`` or ``>10``."""
    low = 0
    for high in DROP_BINS:
        if count <= high:
            return str(high) if high == low else f"{low + 1}–{high}"
        low = high
    return f">{DROP_BINS[-1]}"


def reason_kind(reason: str) -> str:
    """The kind of a drop reason (:data:`REASON_KINDS`); another reason without its numbers."""
    for start, kind in REASON_KINDS:
        if reason.startswith(start):
            return kind
    return _NUMBER.sub("#", reason).strip()


def _branches(rec: Mapping[str, Any]) -> tuple[str, ...] | None:
    steps = rec.get("steps")
    if not isinstance(steps, list | tuple):
        return None
    names = [s.get("name", "") for s in steps if isinstance(s, Mapping)]
    return tuple(_BRANCH_STEPS[n] for n in names if n in _BRANCH_STEPS)


def _adaptation(rec: Mapping[str, Any]) -> Selection | None:
    steps = rec.get("steps") if isinstance(rec.get("steps"), list | tuple) else []
    for step, payload in zip(steps, step_payloads(rec), strict=False):
        if isinstance(step, Mapping) and step.get("name") == "adapt":
            return payload if isinstance(payload, Selection) else None
    return None


def _recovery(rec: Mapping[str, Any]) -> str | None:
    base, final = rec.get("base_has_answer"), rec.get("context_has_answer")
    if missing(base) or missing(final) or bool(base):
        return None
    return "recovered" if bool(final) else "not recovered"


def _router(rec: Mapping[str, Any]) -> tuple[str | None, bool | None]:
    details = record_details(rec)
    if isinstance(details, AceDetails):
        router = details.router
        return (router.topology, router.fallback) if router is not None else (None, None)
    meta = rec.get("router")
    fallback = bool(meta["fallback"]) if isinstance(meta, Mapping) else None
    topology = rec.get("topology")
    return (None if missing(topology) else str(topology)), fallback


def ace_decisions(rec: Mapping[str, Any]) -> Decisions:
    """One ACE record's decisions (the module docstring lists them)."""
    topology, router_fallback = _router(rec)
    policy, plan = rec.get("policy"), rec.get("plan")
    gap = isinstance(policy, Mapping) and bool(policy.get("gap"))
    plan_fallback = plan.get("fallback") if gap and isinstance(plan, Mapping) else None
    selection = _adaptation(rec)
    reasons = None
    if selection is not None:
        reasons = {reason_kind(why) for _, why in selection.dropped} or {"none"}
    return {
        "route": topology,
        "router fallback": router_fallback if topology is not None else None,
        "planner fallback": plan_fallback,
        # the branches are the policy's under Full-ACE and a fixed policy: a decision only where
        # the router chose the policy
        "branches issued": _branches(rec) if topology is not None else None,
        "items dropped": None if selection is None else dropped_bin(len(selection.dropped)),
        "drop reasons": reasons,
        "recovery": _recovery(rec),
    }


def is_ace(method: str) -> bool:
    """Whether ``method``'s records are ACE's (ACE over any source included)."""
    try:
        return spec(method).report == REPORT
    except (KeyError, ValueError):  # a name this registry no longer knows
        return False


def ace_liveness(frame: pd.DataFrame) -> pd.DataFrame:
    """The liveness table (:func:`~ace_lab.eval.liveness.method_liveness`) of every ACE method
    of a study's records (recovery only for a QA study)."""
    if frame.empty:
        return method_liveness(frame, ace_decisions)
    methods = [m for m in dict.fromkeys(frame["method"]) if is_ace(m)]
    table = method_liveness(frame, ace_decisions, methods)
    if study_task(frame) not in (None, "qa"):  # a frame read from no study keeps it
        table = table[table["mechanism"] != "recovery"].reset_index(drop=True)
    return table


#: What ``ace-lab liveness`` and the docs call for this report's methods of a study.
LIVENESS_TABLE = ace_liveness
