"""ACE-specific analysis of answered questions: Adaptive-ACE's router and its topology policies.

Plain computations over per-question values (pandas Series indexed by question id), with the
paper's topology order and names (Tables 1 and 12). They know ACE's policies but nothing about
how results are stored or summarised: ``ace_lab.eval`` selects a study's rows, calls these and
adds the intervals, which keeps this module in the methods layer (it imports only ``ace.policy``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

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
