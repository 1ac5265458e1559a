"""ACE-specific analysis of answered questions: Adaptive-ACE's router and its topology policies.

The router is scored against the data sets' own question types through a documented proxy
mapping (:data:`PROXY_TOPOLOGY`, :func:`proxy_topology`): :func:`router_confusion` and
:func:`router_accuracy`.

Plain computations over per-question values (pandas Series indexed by question id), with the
paper's topology order and names (Tables 1 and 12). They know ACE's policies but nothing about
how results are stored or summarised: ``ace_lab.eval`` selects a study's rows, calls these and
adds the intervals, which keeps this module in the methods layer (it imports only ``ace.policy``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import pandas as pd

from ace_lab.ace.policy import TOPOLOGIES, TOPOLOGY_NAMES, topology_policy

#: The label of a routed question whose topology was not recorded.
NO_TOPOLOGY = "(none)"


def topology_policy_labels() -> dict[str, str]:
    """Router topology → the label of the fixed policy Adaptive-ACE applies for it
    (``POINT`` → ``gap+depth+prune`` ...), in the paper's topology order."""
    return {t: topology_policy(t).label for t in TOPOLOGIES}


def topology_rank(topology: str) -> int:
    """Sort key: the paper's topology order, anything else after it."""
    return TOPOLOGIES.index(topology) if topology in TOPOLOGIES else 99


def router_distribution(topologies: pd.Series, total: int | None = None) -> pd.DataFrame:
    """How often the router chose each topology, one label per question.

    All four topologies are listed (zero counts included), then any other label sorted; a
    missing label counts as ``(none)``. ``share`` is over ``total`` questions (default: one
    per label given).
    """
    counts = topologies.fillna(NO_TOPOLOGY).value_counts()
    order = list(TOPOLOGIES) + sorted(str(t) for t in counts.index if t not in TOPOLOGIES)
    total = len(topologies) if total is None else total
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
    topology: pd.Series, adaptive: pd.Series, full: pd.Series, ids: Iterable[str]
) -> pd.DataFrame:
    """Adaptive minus Full score per router topology over the questions ``ids``.

    ``topology`` holds Adaptive's label per question id, ``adaptive`` and ``full`` the two
    runs' scores. Topologies run in the paper's order, then any other label in first-seen
    order; the last row, ``all``, pools every question.
    """
    ids = list(ids)
    labels = topology.loc[ids].fillna(NO_TOPOLOGY)
    present = list(dict.fromkeys(labels))
    order = [t for t in TOPOLOGIES if t in present] + [t for t in present if t not in TOPOLOGIES]
    groups = [(t, [i for i in ids if labels[i] == t]) for t in order] + [("all", ids)]
    rows = []
    for label, chosen in groups:
        a, f = adaptive.loc[chosen], full.loc[chosen]
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


# ----------------------------------------------------------------- router vs question types
#: Proxy mapping: a data set's own question type → the topology it stands for. It is a proxy:
#: the data sets were not labelled with the paper's topologies, and neither type set has a
#: single-entity (POINT) or a thematic (OVERVIEW) class, so those labels are always "wrong"
#: here. HotpotQA ``bridge`` (find the bridge entity, then ask about it) and 2Wiki
#: ``compositional`` (an attribute of an entity reached through a relation) and ``inference``
#: (a composed relation: a grandfather is a father's father) are chains; HotpotQA and 2Wiki
#: ``comparison`` and 2Wiki ``bridge_comparison`` (compare an attribute reached through a
#: relation) compare named entities; every MuSiQue question (``2hop``, ``3hop1``, ``4hop3``
#: ...: the hop count in its id) is a chain.
PROXY_TOPOLOGY: dict[str, str] = {
    "bridge": "CHAIN",
    "comparison": "CONTRAST",
    "compositional": "CHAIN",
    "inference": "CHAIN",
    "bridge_comparison": "CONTRAST",
}
_HOPS = re.compile(r"[2-9]hop\d*")
#: Column of :func:`router_confusion` for a question the router left without a label.
NO_LABEL = NO_TOPOLOGY


def proxy_topology(question_type: Any) -> str | None:
    """The topology ``question_type`` stands for under :data:`PROXY_TOPOLOGY` (MuSiQue hop
    counts → ``CHAIN``); None for a type without a proxy (or no type)."""
    if not isinstance(question_type, str):
        return None
    if question_type in PROXY_TOPOLOGY:
        return PROXY_TOPOLOGY[question_type]
    return "CHAIN" if _HOPS.fullmatch(question_type) else None


def _labels(predicted: pd.Series) -> pd.Series:
    return predicted.astype(object).where(predicted.notna(), NO_LABEL)


def router_confusion(types: pd.Series, predicted: pd.Series) -> pd.DataFrame:
    """Question type × router label counts, one row per question type.

    ``types`` and ``predicted`` are aligned per question (same index). Columns: ``type``, its
    ``proxy`` topology, ``n``, one count column per topology (all four, in the paper's order,
    then any other label, e.g. ``(none)`` for a missing label) and ``correct`` (the count in
    the proxy's column). Rows run in the paper's order of their proxy, then by type name;
    types without a proxy come last with an empty ``proxy``.
    """
    labels = _labels(predicted)
    frame = pd.DataFrame({"type": types.fillna(NO_LABEL).astype(str), "label": labels})
    extra = sorted({str(x) for x in frame["label"]} - set(TOPOLOGIES))
    columns = [*TOPOLOGIES, *extra]
    rows = []
    for qtype, group in frame.groupby("type", sort=False):
        proxy = proxy_topology(qtype)
        counts = group["label"].value_counts()
        row: dict[str, Any] = {"type": qtype, "proxy": proxy or "", "n": len(group)}
        row |= {c: int(counts.get(c, 0)) for c in columns}
        row["correct"] = int(counts.get(proxy, 0)) if proxy else 0
        rows.append(row)
    rows.sort(key=lambda r: (topology_rank(r["proxy"]) if r["proxy"] else 100, r["type"]))
    return pd.DataFrame(rows, columns=["type", "proxy", "n", *columns, "correct"])


def router_hits(types: pd.Series, predicted: pd.Series) -> pd.Series:
    """1.0 where the router's label equals the question type's proxy topology, else 0.0, for
    the questions whose type has a proxy (the others are left out)."""
    proxies = types.map(proxy_topology)
    known = proxies.notna()
    return (_labels(predicted)[known] == proxies[known]).astype(float)


def router_accuracy(types: pd.Series, predicted: pd.Series) -> dict[str, Any]:
    """Accuracy under the proxy mapping: ``n`` questions with a proxy, ``correct``,
    ``accuracy`` and ``classes``, the number of distinct labels the router gave them."""
    hits = router_hits(types, predicted)
    classes = _labels(predicted)[hits.index].nunique()
    return {
        "n": len(hits),
        "correct": int(hits.sum()),
        "accuracy": float(hits.mean()) if len(hits) else math.nan,
        "classes": int(classes),
    }
