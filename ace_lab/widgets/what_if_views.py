"""How the explorer shows one setting's outcome: HTML fragments and the change subgraph.

Everything here escapes what it shows: answers, evidence ids and context text come from the
corpus and the model. The evidence subgraph is a pyvis page (``ace_lab.viz.pyvis_view``, whose
data are JSON inside a script and whose tooltips are plain text) embedded as an iframe's
escaped ``srcdoc``, so no corpus text is ever markup in the notebook.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

import pandas as pd

from ace_lab import viz
from ace_lab.evidence import Evidence
from ace_lab.retrieval import RetrievalGraph
from ace_lab.viz.network import GraphView
from ace_lab.widgets.what_if import Change, Outcome, Probe

#: Node colours of the change subgraph.
CHANGE_COLOURS = {"added": "#2ca02c", "kept": "#7f7f7f", "removed": "#d62728"}


def change_view(
    graph: RetrievalGraph,
    current: Sequence[Evidence],
    previous: Sequence[Evidence],
    *,
    title: str,
    height: str = "480px",
) -> GraphView:
    """The graph nodes behind the current context's items, green where an item is new against
    the previous setting, grey where it was kept, and the previous items' nodes that are gone
    pale red (their tooltip names the item)."""
    before, now = {e.id for e in previous}, {e.id for e in current}
    status: dict[str, str] = {}
    notes: dict[str, str] = {}
    pale: dict[str, str] = {}
    for item in current:
        for node in item.meta.get("nodes", ()):
            status.setdefault(node, "kept" if item.id in before else "added")
            notes.setdefault(node, f"evidence {item.id} ({item.kind})")
    for item in previous:
        if item.id in now:
            continue
        for node in item.meta.get("nodes", ()):
            if node not in status:
                status[node], pale[node] = "removed", f"was in {item.id}"
    tables = graph.tables
    status = {n: s for n, s in status.items() if n in set(tables.nodes["id"])}
    nodes = tables.nodes[tables.nodes["id"].isin(status)]
    edges = tables.edges
    edges = edges[edges["source"].isin(status) & edges["target"].isin(status)]
    counts = {k: sum(v == k for v in status.values()) for k in CHANGE_COLOURS}
    caption = " · ".join(f"{n} {k}" for k, n in counts.items()) + " nodes · hover for the text"
    return viz.pyvis_view(
        nodes,
        edges,
        title=title,
        colour_by=status,
        palette=CHANGE_COLOURS,
        pale_nodes=pale,
        pale_legend="removed against the previous setting (pale, dashed)",
        notes=notes,
        caption=caption,
        height=height,
    )


#: Pixels a view page needs above and around its network: title, legend, margins and border.
FRAME_ROOM = 110


def frame_height(view: GraphView) -> int:
    """Pixels an iframe needs to show ``view``'s whole page, so it never scrolls inside."""
    return int(str(view.height).removesuffix("px")) + FRAME_ROOM


def iframe(view: GraphView, height: int | None = None) -> str:
    """``view``'s page in an iframe (``srcdoc`` escaped: the page stays the page's), tall
    enough for the whole page (:func:`frame_height`) unless ``height`` says otherwise."""
    page = escape(view.generate_html(), quote=True)
    height = frame_height(view) if height is None else height
    style = f"width:100%;height:{height}px;border:1px solid #ddd"
    return f'<iframe class="ace-what-if-graph" style="{style}" srcdoc="{page}"></iframe>'


def probe_html(probe: Probe) -> str:
    """The cache verdict, amber when a model call is about to run."""
    colour = "#2ca02c" if probe.cached else "#b8860b"
    return f'<div style="color:{colour}">{escape(probe.line())}</div>'


def answer_html(outcome: Outcome) -> str:
    """The answer, its score against the gold answers, tokens, calls and time."""
    gold = " | ".join(outcome.gold) or "(none)"
    return (
        f"<div><b>{escape(outcome.name)}</b></div>"
        f"<div>answer: <b>{escape(outcome.answer.text)}</b> · gold: {escape(gold)}</div>"
        f"<div>{escape(outcome.score_line())}</div>"
        f"<div>{escape(outcome.cost_line())}</div>"
    )


def change_html(change: Change) -> str:
    """Items added and removed against the previous setting, then the context diff."""
    listed = [
        f"<div>{label}: {escape(', '.join(ids) or '—')}</div>"
        for label, ids in (("added", change.added), ("removed", change.removed))
    ]
    colours = {"+": "#2ca02c", "-": "#d62728", "@": "#1f77b4"}
    lines = [
        f'<span style="color:{colours.get(line[:1], "inherit")}">{escape(line)}</span>'
        for line in change.diff
    ]
    diff = "\n".join(lines) or "(no previous setting, or the same context)"
    return "".join(listed) + f'<pre style="white-space:pre-wrap;font-size:85%">{diff}</pre>'


def walk_table(outcomes: Sequence[Outcome]) -> pd.DataFrame:
    """One row per setting answered: its name, answer, F1/EM, tokens, calls and seconds."""
    rows = [
        {
            "setting": o.name,
            "answer": o.answer.text,
            "F1": o.f1,
            "EM": o.em,
            "evidence": len(o.evidence),
            **{k: o.cost[k] for k in ("input_tokens", "output_tokens", "llm_calls", "cache_hits")},
        }
        for o in outcomes
    ]
    return pd.DataFrame(rows)


def walk_figure(outcomes: Sequence[Outcome]) -> Any:
    """F1 against input tokens, one labelled point per setting (what each setting buys)."""
    import matplotlib.pyplot as plt

    table = walk_table(outcomes)
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    ax.scatter(table["input_tokens"], table["F1"].fillna(0.0), color="#1f77b4")
    for _, row in table.iterrows():
        ax.annotate(row["setting"], (row["input_tokens"], row["F1"] or 0.0), fontsize=7)
    ax.set_xlabel("input tokens (cold cache)")
    ax.set_ylabel("F1 against the gold answers")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title("one question under each setting", fontsize=10)
    fig.tight_layout()
    return fig
