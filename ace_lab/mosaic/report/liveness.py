"""MOSAIC's adaptive decisions per question, for the liveness tables (:mod:`ace_lab.eval.liveness`).

:func:`mosaic_decisions` reads one MOSAIC record into its decisions:

- under an analyzer (``mosaic``, ``mosaic:signals``): every control of the validated policy
  (after clamping; ``targets`` as how many there were, ``patience`` left out, since the paper
  fixes it), whether the analyzer fell back to the default policy, and — where the record keeps
  its typed ``policy`` step — each numeric control *as written* before validation, so a clamp
  that overrides the analyzer shows (``seed_count as written``);
- under every policy, fixed ones included: the ``stop reason``, the ``depth reached`` and
  whether connector paths were used (``connectors used``, where the policy turned them on).

A fixed policy's controls are its name's, so they are not decisions and are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from ace_lab.eval.liveness import Decisions, method_liveness, missing
from ace_lab.eval.studies.record import step_payloads
from ace_lab.mosaic.report.policies import POLICY_FIELDS, policy_of, records_of, stats_of
from ace_lab.mosaic.specs import REPORT
from ace_lab.mosaic.steps import ExplorationChoice
from ace_lab.registry import parse, spec
from ace_lab.trace import step_branch

#: The head of the method names whose policy an analyzer writes per question.
ANALYZER_HEAD = "mosaic"
#: Controls that are not per-question decisions (the paper fixes patience at one).
FIXED_CONTROLS = ("patience",)
#: Numeric controls, shown as written too: a clamp shows as written ≠ validated.
NUMERIC_CONTROLS = (
    "seed_count",
    "max_depth",
    "min_depth",
    "beam_width",
    "evidence_budget",
    "preservation_floor",
    "source_window",
)
WRITTEN = "{} as written"


def is_analyzed(method: str) -> bool:
    """Whether an analyzer chose ``method``'s policy per question (not a fixed policy)."""
    return parse(method).head == ANALYZER_HEAD


def _choice(rec: Mapping[str, Any]) -> ExplorationChoice | None:
    """The record's policy decision: its first own ``policy`` step's (a branch step such as
    ``depth/policy`` is a fixed policy run for another method's branch, not a decision)."""
    steps = rec.get("steps") if isinstance(rec.get("steps"), list | tuple) else []
    names = [str(s.get("name", "")) if isinstance(s, Mapping) else "" for s in steps]
    own = (p for n, p in zip(names, step_payloads(rec), strict=False) if not step_branch(n))
    return next((p for p in own if isinstance(p, ExplorationChoice)), None)


def _controls(rec: Mapping[str, Any], choice: ExplorationChoice | None) -> dict[str, Any]:
    policy = policy_of(rec)
    out: dict[str, Any] = {}
    for name in POLICY_FIELDS:
        if name in FIXED_CONTROLS:
            continue
        value = policy.get(name)
        out[name] = len(value) if name == "targets" and not missing(value) else value
    stats = stats_of(rec)
    fallback = choice.fallback if choice is not None else stats.get("analyzer_fallback")
    out["analyzer fallback"] = fallback
    if choice is not None:
        for name in NUMERIC_CONTROLS:
            written = choice.raw.get(name)
            # a value the model wrote as text or left out shows as such, not as a number
            out[WRITTEN.format(name)] = "(left out)" if written is None else written
    return out


def mosaic_decisions(rec: Mapping[str, Any]) -> Decisions | None:
    """One MOSAIC record's decisions (the module docstring lists them); None for a record
    without MOSAIC's ``stats``."""
    stats = stats_of(rec)
    if "stop_reason" not in stats:
        return None
    decisions: dict[str, Any] = {}
    if is_analyzed(str(rec.get("method", ""))):
        decisions |= _controls(rec, _choice(rec))
    connectors = policy_of(rec).get("connectors")
    used = stats.get("connectors_used")
    decisions |= {
        "stop reason": stats.get("stop_reason"),
        "depth reached": stats.get("depth_reached"),
        "connectors used": bool(used) if connectors and not missing(used) else None,
    }
    return decisions


def is_mosaic(method: str) -> bool:
    """Whether ``method``'s records are MOSAIC's (its fixed policies included)."""
    try:
        return spec(method).report == REPORT
    except (KeyError, ValueError):  # a name this registry no longer knows
        return False


def mosaic_liveness(records: pd.DataFrame | Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The liveness table (:func:`~ace_lab.eval.liveness.method_liveness`) of every MOSAIC
    method of a study's records (a results frame, or the record dicts notebook 05 holds)."""
    frame = records if isinstance(records, pd.DataFrame) else pd.DataFrame(records_of(records))
    if frame.empty:
        return method_liveness(frame, mosaic_decisions)
    methods = [m for m in dict.fromkeys(frame["method"]) if is_mosaic(m)]
    return method_liveness(frame, mosaic_decisions, methods)


#: What ``ace-lab liveness`` and the docs call for this report's methods of a study.
LIVENESS_TABLE = mosaic_liveness
