"""The policies MOSAIC assigned (notebooks 05 and 06), from traces and evaluation records.

- :func:`policy_side_by_side`: the analyzer's policy for a few questions, one column each —
  the signals the model reported, each control raw → validated, and what validation changed
  (read from each trace's :class:`~ace_lab.mosaic.steps.ExplorationChoice`);
- :func:`policy_frame`, :func:`policy_distribution`, :func:`policy_summary`,
  :func:`policy_combinations`: the policies a run assigned over a slice — per-control value
  counts and the distinct combinations of controls (the paper's §7.4: 19 combinations over
  2,062 Medical queries); :func:`policy_diversity`: that count and the control spans per slice;
- :func:`connector_activation`: how often the policy turned connectors on, per question type
  (the paper: 65.6 % of multi-hop vs 21.6 % of other queries);
- :func:`budget_matched_name`, :func:`with_budget_matched`: the slice's budget-matched control.

A *record* is a mapping with ``id``, ``method``, ``stats`` (the ``stats`` column of
``MosaicDetails.columns``) and optionally ``type``, ``em``, ``f1`` — the evaluation records of
:mod:`ace_lab.eval.studies.record` or a results frame's rows, committed ones included.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ace_lab.evidence import Trace
from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.report.steps import BEFORE_TYPED_STEPS, payload
from ace_lab.mosaic.steps import ExplorationChoice

#: The policy fields in declaration order (the rows of the side-by-side table).
POLICY_FIELDS = tuple(f.name for f in dataclasses.fields(ExplorationPolicy))
#: Fields that do not make a policy *combination*: the target strings are the question's own
#: words, not a control setting (ours; the paper does not say what it counted).
NOT_A_CONTROL = ("targets",)
#: The file stem of the policy-diversity table over the studies (directly under results/).
POLICY_DIVERSITY = "05_policy_diversity"
#: The bare name a method list uses for "this slice's budget-matched control".
BUDGET_MATCHED = "mosaic-budget-matched"


def _show(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) if value else "—"
    return str(value)


def _column(choice: ExplorationChoice | None, signals: list[str]) -> dict[tuple[str, str], str]:
    """One question's cells of :func:`policy_side_by_side`."""
    if choice is None:
        return {("validation", "label"): BEFORE_TYPED_STEPS}
    cells = {("analyzer JSON", s): _show(choice.signals[s]) for s in signals if s in choice.signals}
    for name in POLICY_FIELDS:
        used = choice.policy.get(name)
        given = choice.raw.get(name, used)
        changed = name in choice.raw and _show(given) != _show(used)
        cells["policy", name] = f"{_show(given)} → {_show(used)}" if changed else _show(used)
    cells["validation", "label"] = choice.label
    cells["validation", "default policy (fallback)"] = str(choice.fallback)
    cells["validation", "adjustments"] = "; ".join(choice.adjustments) or "none"
    return cells


def policy_side_by_side(traces: Mapping[str, Trace]) -> pd.DataFrame:
    """One column per question (``traces``: label → MOSAIC trace), rows in three parts:

    - ``analyzer JSON``: each signal as the analyzer's validated JSON reported it;
    - ``policy``: each control, ``raw → validated`` where validation changed the value the
      signals called for (a clamp, a cross-field repair), else the validated value;
    - ``validation``: the policy label, whether the default policy replaced unusable output,
      and every adjustment validation made (field: given → used (why)).
    """
    choices = {label: payload(trace, ExplorationChoice) for label, trace in traces.items()}
    signals = list(dict.fromkeys(s for c in choices.values() if c for s in c.signals))
    index = [("analyzer JSON", s) for s in signals] + [("policy", f) for f in POLICY_FIELDS]
    index += [
        ("validation", "label"),
        ("validation", "default policy (fallback)"),
        ("validation", "adjustments"),
    ]
    columns = {label: _column(choice, signals) for label, choice in choices.items()}
    table = pd.DataFrame(
        {label: [cells.get(i, "—") for i in index] for label, cells in columns.items()}
    )
    table.index = pd.MultiIndex.from_tuples(index, names=["part", "field"])
    return table.reindex(columns=list(traces))


# --------------------------------------------------------------------- policies over a slice
def records_of(records: Iterable[Mapping[str, Any]] | pd.DataFrame) -> list[dict[str, Any]]:
    """Records as a list of dicts (a results frame's rows too)."""
    if isinstance(records, pd.DataFrame):
        return records.to_dict("records")
    return [dict(r) for r in records]


def stats_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record's ``stats`` column (empty when it has none)."""
    stats = record.get("stats")
    return dict(stats) if isinstance(stats, Mapping) else {}


def policy_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """The policy a record's question got (its controls; empty when it has none)."""
    policy = stats_of(record).get("policy") or record.get("policy")
    return dict(policy) if isinstance(policy, Mapping) else {}


#: What :func:`policy_frame` keeps of a run besides its policy.
RUN_COLUMNS = (
    "depth_reached",
    "paths_evaluated",
    "evidence_retained",
    "stop_reason",
    "connectors_used",
    "analyzer_fallback",
)


def policy_frame(records: Any, method: str = "mosaic") -> pd.DataFrame:
    """One row per question ``method`` answered: its policy's controls, the policy label and
    the combination key (every control but :data:`NOT_A_CONTROL`), and what the run did with
    it (depth reached, paths evaluated, evidence retained, stop reason, connectors used)."""
    rows = []
    for r in records_of(records):
        if r.get("method") != method:
            continue
        policy, stats = policy_of(r), stats_of(r)
        if not policy:
            continue
        controls = {k: policy.get(k) for k in POLICY_FIELDS if k not in NOT_A_CONTROL}
        label = stats.get("policy_label") or ExplorationPolicy.clamp(policy)[0].label
        rows.append(
            {
                "id": r.get("id"),
                "type": r.get("type"),
                **controls,
                "targets": len(policy.get("targets") or ()),
                "label": label,
                "combination": tuple(sorted((k, str(v)) for k, v in controls.items())),
                **{k: stats.get(k) for k in RUN_COLUMNS},
            }
        )
    return pd.DataFrame(rows)


def _natural(value: str) -> tuple[int, float | str]:
    try:
        return (0, float(value))
    except ValueError:
        return (1, value)


def policy_distribution(records: Any, method: str = "mosaic") -> pd.DataFrame:
    """Per control, how many questions got each value (share of the questions too)."""
    frame = policy_frame(records, method)
    if frame.empty:
        return pd.DataFrame(columns=["control", "value", "questions", "share"])
    out = []
    for name in [f for f in POLICY_FIELDS if f not in NOT_A_CONTROL] + ["targets"]:
        counts = frame[name].astype(str).value_counts()
        for value in sorted(counts.index, key=_natural):
            share = round(counts[value] / len(frame), 3)
            out.append(
                {"control": name, "value": value, "questions": int(counts[value]), "share": share}
            )
    return pd.DataFrame(out)


def policy_summary(records: Any, method: str = "mosaic") -> pd.DataFrame:
    """One row per control: how many distinct values it took and ``value: questions`` for each
    (the compact form of :func:`policy_distribution`)."""
    rows = {}
    for control, group in policy_distribution(records, method).groupby("control", sort=False):
        pairs = zip(group["value"], group["questions"], strict=True)
        rows[control] = {
            "distinct": len(group),
            "values": " · ".join(f"{v}: {q}" for v, q in pairs),
        }
    return pd.DataFrame.from_dict(rows, orient="index", columns=["distinct", "values"])


def policy_combinations(records: Any, method: str = "mosaic") -> pd.DataFrame:
    """The distinct policy combinations ``method`` assigned, most frequent first: the label of
    each, how many questions got it and their share. ``len()`` is the paper's §7.4 count."""
    frame = policy_frame(records, method)
    if frame.empty:
        return pd.DataFrame(columns=["label", "questions", "share"])
    grouped = frame.groupby("combination", sort=False)
    table = pd.DataFrame({"label": grouped["label"].first(), "questions": grouped.size()})
    table = table.sort_values(["questions", "label"], ascending=[False, True])
    table["share"] = (table["questions"] / len(frame)).round(3)
    return table.reset_index(drop=True)


def _span(values: pd.Series) -> str:
    numbers = values.astype(float)
    low, high = int(numbers.min()), int(numbers.max())
    return str(low) if low == high else f"{low}-{high}"


#: MOSAIC's two analyzers, as :func:`policy_diversity` reports them: the paper's, whose reply is
#: the controls (``mosaic``), and six signals mapped to the controls (``mosaic:signals``).
ANALYZERS = ("mosaic", "mosaic:signals")


def policy_diversity(slices: Mapping[str, Any], methods: Sequence[str] = ANALYZERS) -> pd.DataFrame:
    """Per slice (``slices``: name → its records) and analyzer of ``methods``, the paper's §7.4
    numbers: the questions with a policy (``n``), the distinct control combinations assigned,
    the share of questions the most common one got, and the span of the depth cap, seed count
    and evidence budget (the paper, over 2,062 Medical queries: 19 combinations, depth 2-4,
    seeds 5-12, budget 8-16). A slice or analyzer without policies has no row."""
    rows = []
    for name, records in slices.items():
        for method in methods:
            frame = policy_frame(records, method)
            if frame.empty:
                continue
            counts = frame["combination"].value_counts()
            rows.append(
                {
                    "slice": name,
                    "method": method,
                    "n": len(frame),
                    "combinations": len(counts),
                    "top_share": round(counts.iloc[0] / len(frame), 3),
                    "max_depth": _span(frame["max_depth"]),
                    "seed_count": _span(frame["seed_count"]),
                    "evidence_budget": _span(frame["evidence_budget"]),
                    "connectors_on": round(frame["connectors"].astype(bool).mean(), 3),
                    "fallback": int(frame["analyzer_fallback"].fillna(False).astype(bool).sum()),
                }
            )
    return pd.DataFrame(rows)


def connector_activation(records: Any, method: str = "mosaic") -> pd.DataFrame:
    """Per question type (and ``all``): questions, the share whose policy switched connector
    exploration on, and the share whose exploration kept at least one connector path."""
    frame = policy_frame(records, method)
    if frame.empty:
        return pd.DataFrame(columns=["questions", "policy_on", "used"])
    used = frame["connectors_used"].fillna(0).astype(float) > 0
    frame = frame.assign(type=frame["type"].fillna("unknown"), used=used)
    parts = [(str(t), g) for t, g in frame.groupby("type")] + [("all", frame)]
    rows = {
        t: {
            "questions": len(g),
            "policy_on": round(g["connectors"].astype(bool).mean(), 3),
            "used": round(g["used"].mean(), 3),
        }
        for t, g in parts
    }
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("type")
    return table.astype({"questions": int})


# ------------------------------------------------------------------ the budget-matched control
def budget_matched_name(records: Any, method: str = "mosaic") -> str:
    """The ``mosaic-budget-matched:<budget>x<depth>`` control for a slice: Fixed Medium with
    the mean evidence budget and mean depth cap ``D_q`` that ``method``'s analyzer assigned on
    it (the policy controls, not what the runs reached), each rounded half up."""
    frame = policy_frame(records, method)
    if frame.empty:
        raise ValueError(f"no {method} policies in these records: run {method} on the slice first")
    budget = int(frame["evidence_budget"].astype(float).mean() + 0.5)
    depth = int(frame["max_depth"].astype(float).mean() + 0.5)
    return f"{BUDGET_MATCHED}:{budget}x{depth}"


def with_budget_matched(names: Sequence[str], records: Any, method: str = "mosaic") -> list[str]:
    """``names`` with a bare :data:`BUDGET_MATCHED` replaced by the slice's control
    (:func:`budget_matched_name` of ``method``'s records), so one method list serves slices
    whose controls differ; left out where ``method`` has no policies on the slice."""
    resolved = []
    for name in names:
        if name == BUDGET_MATCHED:
            if policy_frame(records, method).empty:
                continue
            name = budget_matched_name(records, method)
        if name not in resolved:
            resolved.append(name)
    return resolved
