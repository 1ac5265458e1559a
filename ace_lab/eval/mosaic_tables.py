"""MOSAIC's analysis tables (notebook 05), read from traces, ``meta["stats"]`` and records.

- :func:`policy_side_by_side`: the analyzer's policy for a few questions, one column each —
  the signals the model reported, each control raw → validated, and what validation changed;
- :func:`policy_frame`, :func:`policy_distribution`, :func:`policy_combinations`: the policies
  a run assigned over a slice — per-control value counts and the distinct combinations of
  controls (the paper's §7.4: 19 combinations over 2,062 Medical queries);
- :func:`stopping_curve`: one query's novelty gain and evidence completeness per depth, with
  its stopping threshold and the depth it stopped at;
- :func:`effort_table`: paths evaluated and evidence retained per method, and their change
  relative to a reference (Fixed Wide: the paper reports −81.9 % paths, −47.2 % evidence);
- :func:`connector_activation`: how often the policy turned connectors on, per question type
  (the paper: 65.6 % of multi-hop vs 21.6 % of other queries).

A *record* is a mapping with ``id``, ``method``, ``stats`` (``answer.meta["stats"]``) and
optionally ``type``, ``em``, ``f1`` — the evaluation records of :mod:`ace_lab.eval.record` or a
results frame's rows. The figures of these tables are in :mod:`ace_lab.eval.mosaic_plots`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ace_lab.evidence import Trace
from ace_lab.mosaic.policy import GAIN_LOW, STOP_THRESHOLDS, ExplorationPolicy

#: The policy fields in declaration order (the rows of the side-by-side table).
POLICY_FIELDS = tuple(f.name for f in dataclasses.fields(ExplorationPolicy))
#: Fields that do not make a policy *combination*: the target strings are the question's own
#: words, not a control setting (ours; the paper does not say what it counted).
NOT_A_CONTROL = ("targets",)
#: The reference of :func:`effort_table` (the paper compares with Fixed Wide).
REFERENCE = "mosaic-fixed:wide"


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) if value else "—"
    return str(value)


def policy_step(trace: Trace) -> dict[str, Any]:
    """The outputs of the trace's ``policy`` step (empty when it has none)."""
    step = trace.find("policy")
    return dict(step.outputs) if step is not None else {}


def policy_side_by_side(traces: Mapping[str, Trace]) -> pd.DataFrame:
    """One column per question (``traces``: label → MOSAIC trace), rows in three parts:

    - ``analyzer JSON``: each signal as the analyzer's validated JSON reported it;
    - ``policy``: each control, ``raw → validated`` where validation changed the value the
      signals called for (a clamp, a cross-field repair), else the validated value;
    - ``validation``: the policy label, whether the default policy replaced unusable output,
      and every adjustment validation made (field: given → used (why)).
    """
    outputs = {label: policy_step(trace) for label, trace in traces.items()}
    signals = list(dict.fromkeys(k for o in outputs.values() for k in o.get("signals") or {}))
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for label, out in outputs.items():
        sig, raw, policy = out.get("signals") or {}, out.get("raw") or {}, out.get("policy") or {}
        for name in signals:
            rows.setdefault(("analyzer JSON", name), {})[label] = (
                _show(sig[name]) if name in sig else "—"
            )
        for name in POLICY_FIELDS:
            used = policy.get(name)
            given = raw.get(name, used)
            changed = name in raw and _show(given) != _show(used)
            cell = f"{_show(given)} → {_show(used)}" if changed else _show(used)
            rows.setdefault(("policy", name), {})[label] = cell
        part = "validation"
        rows.setdefault((part, "label"), {})[label] = str(out.get("label", "—"))
        rows.setdefault((part, "default policy (fallback)"), {})[label] = str(
            bool(out.get("fallback"))
        )
        rows.setdefault((part, "adjustments"), {})[label] = (
            "; ".join(out.get("adjustments") or []) or "none"
        )
    table = pd.DataFrame.from_dict(rows, orient="index").reindex(columns=list(traces))
    table.index = pd.MultiIndex.from_tuples(table.index, names=["part", "field"])
    return table.fillna("—")


# --------------------------------------------------------------------- policies over a slice
def _records(records: Iterable[Mapping[str, Any]] | pd.DataFrame) -> list[dict[str, Any]]:
    if isinstance(records, pd.DataFrame):
        return records.to_dict("records")
    return [dict(r) for r in records]


def _stats(record: Mapping[str, Any]) -> dict[str, Any]:
    stats = record.get("stats")
    return dict(stats) if isinstance(stats, Mapping) else {}


def _policy(record: Mapping[str, Any]) -> dict[str, Any]:
    policy = _stats(record).get("policy") or record.get("policy")
    return dict(policy) if isinstance(policy, Mapping) else {}


def policy_frame(records: Any, method: str = "mosaic") -> pd.DataFrame:
    """One row per question ``method`` answered: its policy's controls, the policy label and
    the combination key (every control but :data:`NOT_A_CONTROL`), and what the run did with
    it (depth reached, paths evaluated, evidence retained, stop reason, connectors used)."""
    rows = []
    for r in _records(records):
        if r.get("method") != method:
            continue
        policy, stats = _policy(r), _stats(r)
        if not policy:
            continue
        controls = {k: policy.get(k) for k in POLICY_FIELDS if k not in NOT_A_CONTROL}
        rows.append({
            "id": r.get("id"), "type": r.get("type"), **controls,
            "targets": len(policy.get("targets") or ()),
            "label": stats.get("policy_label") or ExplorationPolicy.clamp(policy)[0].label,
            "combination": tuple(sorted((k, str(v)) for k, v in controls.items())),
            **{k: stats.get(k) for k in ("depth_reached", "paths_evaluated",
                                         "evidence_retained", "stop_reason", "connectors_used",
                                         "analyzer_fallback")},
        })  # fmt: skip
    return pd.DataFrame(rows)


def policy_distribution(records: Any, method: str = "mosaic") -> pd.DataFrame:
    """Per control, how many questions got each value (share of the questions too)."""
    frame = policy_frame(records, method)
    if frame.empty:
        return pd.DataFrame(columns=["control", "value", "questions", "share"])
    out = []
    for name in [f for f in POLICY_FIELDS if f not in NOT_A_CONTROL] + ["targets"]:
        counts = frame[name].astype(str).value_counts()
        order = sorted(counts.index, key=_natural)
        out += [{"control": name, "value": v, "questions": int(counts[v]),
                 "share": round(counts[v] / len(frame), 3)} for v in order]  # fmt: skip
    return pd.DataFrame(out)


def policy_summary(records: Any, method: str = "mosaic") -> pd.DataFrame:
    """One row per control: how many distinct values it took and ``value: questions`` for each
    (the compact form of :func:`policy_distribution`)."""
    dist = policy_distribution(records, method)
    rows = {
        control: {"distinct": len(group),
                  "values": " · ".join(f"{v}: {q}" for v, q in zip(group["value"],
                                                                    group["questions"],
                                                                    strict=True))}
        for control, group in dist.groupby("control", sort=False)
    }  # fmt: skip
    return pd.DataFrame.from_dict(rows, orient="index", columns=["distinct", "values"])


def _natural(value: str) -> tuple[int, float | str]:
    try:
        return (0, float(value))
    except ValueError:
        return (1, value)


def policy_combinations(records: Any, method: str = "mosaic") -> pd.DataFrame:
    """The distinct policy combinations ``method`` assigned, most frequent first: the label of
    each, how many questions got it and their share. ``len()`` is the paper's §7.4 count."""
    frame = policy_frame(records, method)
    if frame.empty:
        return pd.DataFrame(columns=["label", "questions", "share"])
    grouped = frame.groupby("combination", sort=False)
    table = pd.DataFrame({
        "label": grouped["label"].first(), "questions": grouped.size(),
    }).sort_values(["questions", "label"], ascending=[False, True])  # fmt: skip
    table["share"] = (table["questions"] / len(frame)).round(3)
    return table.reset_index(drop=True)


# --------------------------------------------------------------------------- stopping curve
def stopping_curve(trace: Trace) -> pd.DataFrame:
    """Per depth of one MOSAIC answer: paths scored, kept, pruned and kept connectors, novelty
    gain and evidence completeness, the completeness threshold and the low-gain floor the stop
    rule compared them with, and ``stop`` (the stop reason on the last depth, else empty)."""
    policy = policy_step(trace).get("policy") or {}
    setting = policy.get("stop_threshold", "medium")
    threshold = STOP_THRESHOLDS.get(setting, STOP_THRESHOLDS["medium"])
    rows = []
    for step in trace.steps:
        if step.kind != "traverse":
            continue
        o = step.outputs
        rows.append({
            "depth": o.get("depth"), "scored": o.get("candidates", 0),
            "kept": len(o.get("kept", [])), "pruned": o.get("pruned_count", 0),
            "connectors": o.get("connectors", 0), "gain": o.get("gain"),
            "completeness": o.get("completeness"), "threshold": threshold,
            "gain_low": GAIN_LOW, "stop": "",
        })  # fmt: skip
    stop = trace.find("stop")
    if rows and stop is not None:
        rows[-1]["stop"] = str(stop.outputs.get("reason", ""))
    columns = ["depth", "scored", "kept", "pruned", "connectors", "gain", "completeness",
               "threshold", "gain_low", "stop"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


# ------------------------------------------------------------------------ effort vs a reference
def effort_table(
    records: Any, methods: Iterable[str] | None = None, reference: str = REFERENCE
) -> pd.DataFrame:
    """Per method, means over the questions every listed method answered: paths evaluated,
    evidence retained, depth reached, the share of questions that kept a connector path, the
    most common stop reason, EM/F1 where recorded, and ``paths_vs_ref`` / ``evidence_vs_ref``:
    the change of the mean relative to ``reference``'s, in percent (−81.9 means 81.9 % fewer).
    The relative columns are empty when ``reference`` is not among the methods."""
    rows = _records(records)
    wanted = list(dict.fromkeys(methods or [r.get("method") for r in rows]))
    ids: dict[str, set[Any]] = {m: set() for m in wanted}
    for r in rows:
        if r.get("method") in ids and _stats(r):
            ids[r["method"]].add(r.get("id"))
    common = set.intersection(*ids.values()) if ids else set()
    out = []
    for method in wanted:
        mine = [r for r in rows if r.get("method") == method and r.get("id") in common]
        stats = [_stats(r) for r in mine]
        reasons = pd.Series([s.get("stop_reason") for s in stats], dtype=object).value_counts()
        row: dict[str, Any] = {
            "method": method, "n": len(mine),
            "paths_evaluated": _mean(s.get("paths_evaluated") for s in stats),
            "evidence_retained": _mean(s.get("evidence_retained") for s in stats),
            "depth_reached": _mean(s.get("depth_reached") for s in stats),
            "connector_share": _mean(bool(s.get("connectors_used")) for s in stats),
            "stop_reason": reasons.index[0] if len(reasons) else None,
        }  # fmt: skip
        for metric in ("em", "f1"):
            if any(r.get(metric) is not None for r in mine):
                row[metric] = _mean(r.get(metric) for r in mine)
        out.append(row)
    table = pd.DataFrame(out)
    if table.empty:
        return table
    ref = table[table["method"] == reference]
    for column, name in (("paths_evaluated", "paths_vs_ref"), ("evidence_retained",
                                                               "evidence_vs_ref")):  # fmt: skip
        base = ref[column].iloc[0] if len(ref) else None
        table[name] = [
            round(100 * (v / base - 1), 1) if base and v is not None else None
            for v in table[column]
        ]
    table.attrs["reference"] = reference
    table.attrs["questions"] = len(common)
    return table.set_index("method")


def effort_summary(table: pd.DataFrame, method: str = "mosaic") -> str:
    """One line: ``method``'s paths and evidence change vs the table's reference, next to the
    paper's −81.9 % / −47.2 % (says what is missing instead when it cannot be computed)."""
    reference = table.attrs.get("reference", REFERENCE)
    if table.empty or method not in table.index or reference not in table.index:
        return f"no {method} vs {reference} comparison: a method has no records"
    row = table.loc[method]
    if row.get("paths_vs_ref") is None or pd.isna(row.get("paths_vs_ref")):
        return f"no {method} vs {reference} comparison: {reference} evaluated no paths"
    return (f"{method} vs {reference} on {table.attrs.get('questions', '?')} questions: paths "
            f"{row['paths_vs_ref']:+.1f} %, evidence {row['evidence_vs_ref']:+.1f} % "
            "(paper: -81.9 %, -47.2 %)")  # fmt: skip


def _mean(values: Iterable[Any]) -> float | None:
    numbers = [float(v) for v in values if v is not None]
    return round(sum(numbers) / len(numbers), 3) if numbers else None


def connector_activation(records: Any, method: str = "mosaic") -> pd.DataFrame:
    """Per question type (and ``all``): questions, the share whose policy switched connector
    exploration on, and the share whose exploration kept at least one connector path."""
    frame = policy_frame(records, method)
    if frame.empty:
        return pd.DataFrame(columns=["questions", "policy_on", "used"])
    frame = frame.assign(type=frame["type"].fillna("unknown"),
                         used=frame["connectors_used"].fillna(0).astype(float) > 0)  # fmt: skip
    parts = [(str(t), g) for t, g in frame.groupby("type")] + [("all", frame)]
    rows = {
        t: {"questions": len(g), "policy_on": round(g["connectors"].astype(bool).mean(), 3),
            "used": round(g["used"].mean(), 3)}
        for t, g in parts
    }  # fmt: skip
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("type")
    return table.astype({"questions": int})


def budget_matched_name(records: Any, method: str = "mosaic") -> str:
    """The ``mosaic-budget-matched:<budget>x<depth>`` control for a slice: Fixed Medium with
    the mean evidence budget and mean depth cap ``D_q`` that ``method``'s analyzer assigned on
    it (the policy controls, not what the runs reached), each rounded half up."""
    frame = policy_frame(records, method)
    if frame.empty:
        raise ValueError(f"no {method} policies in these records: run {method} on the slice first")
    budget, depth = (int(frame[c].astype(float).mean() + 0.5) for c in ("evidence_budget",
                                                                        "max_depth"))  # fmt: skip
    return f"mosaic-budget-matched:{budget}x{depth}"


#: The bare name a method list uses for "this slice's budget-matched control".
BUDGET_MATCHED = "mosaic-budget-matched"


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
