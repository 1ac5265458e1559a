"""``ace-lab methods``: every method name in at most :data:`WIDTH` columns, or one method's
every setting.

The listing has three parts: the registered methods (one row each, the description wrapped),
the variants and graph families any head takes (with ``auto``, the per-question chooser), and
the compositions ``<source>/<ACE method>`` with every head that can be a source. Each example
name in it (:data:`EXAMPLES`) is one the registry resolves (``tests/cli_commands/test_methods``).
"""

from __future__ import annotations

import argparse
import textwrap

#: Columns the listing fits in (a terminal, a README code block).
WIDTH = 100
#: Every example name the listing shows; each one resolves (tested).
EXAMPLES = (
    "ace-fixed:gap+depth",
    "ace/gap+depth",
    "ace-full:b1500",
    "ace-full@graphrag",
    "arcrag:strict+r1p1",
    "arcrag@openie-bare",
    "mosaic-fixed:narrow",
    "mosaic/narrow",
    "mosaic-budget-matched:12x2",
    "mosaic@openie",
    "auto",
    "auto:20",
    "auto:inf",
    "mosaic/ace-full",
    "arcrag/ace-adaptive",
    "hipporag@hierarchical/ace-fixed:gap+depth",
)
#: (pattern, what it names) for the variants and families; the examples are in :data:`EXAMPLES`.
VARIANTS = (
    (
        "ace-fixed:<policy>",
        "one fixed ACE policy, its steps joined by +: gap, depth, breadth, "
        "prune (ace-fixed:gap+depth, also written ace/gap+depth)",
    ),
    (
        "<method>:b<tokens>",
        "any method with its final context capped at that many tokens, the last + token of "
        "a variant (naive:b600, mosaic-fixed:wide+b600, arcrag:strict+r1p1+b600, ace-full:b1500)",
    ),
    (
        "<ace method>@<backbone>",
        "ACE over another backbone: hirag (default), graphrag (ace-full@graphrag)",
    ),
    (
        "<arc head>:<tokens>",
        "ArcRAG's switches strict, grammar, patterns and its budget of Cypher "
        "attempts per subplan × passes, joined by + (arcrag:strict+r1p1)",
    ),
    ("<arc head>@<graph>", "ArcRAG on typed (default), openie or openie-bare (arcrag@openie-bare)"),
    (
        "mosaic-fixed:<width>",
        "one fixed MOSAIC policy: narrow, medium, wide (mosaic-fixed:narrow, "
        "also written mosaic/narrow)",
    ),
    (
        "mosaic-budget-matched:<b>x<d>",
        "MOSAIC at an evidence budget × depth cap (mosaic-budget-matched:12x2)",
    ),
    ("<mosaic method>@openie", "MOSAIC on the OpenIE graph (mosaic@openie)"),
    (
        "auto, auto:<λ>",
        "the chooser: one method per question from its wording, at a cost weight "
        "λ per million input tokens (auto:20; auto:inf: the cheapest)",
    ),
)


def _rows(rows: list[tuple[str, str]], first: int, width: int) -> list[str]:
    """``rows`` as two columns, the first ``first`` wide, the second wrapped to ``width``
    (never inside a name: no break at a hyphen)."""
    lines = []
    for left, right in rows:
        wrapped = textwrap.wrap(right, width - first - 2, break_on_hyphens=False) or [""]
        if len(left) > first:  # a long pattern takes its own line
            lines.append(left)
            lines.extend(" " * (first + 2) + text for text in wrapped)
            continue
        lines.append(f"{left:<{first}}  {wrapped[0]}")
        lines.extend(" " * (first + 2) + text for text in wrapped[1:])
    return lines


def listing(width: int = WIDTH) -> str:
    """Every registered method, variant, graph family, ``auto`` and composition, as text
    whose every line fits in ``width`` columns."""
    from ace_lab.registry import GRAMMAR, method_table
    from ace_lab.registry.compose import SOURCE_HEADS

    table = method_table()
    store = {True: "*", False: ""}
    graphs = [f"{row.family}{store[bool(row['cypher store'])]}" for _, row in table.iterrows()]
    column = max(map(len, graphs))
    methods = _rows(
        [
            (f"{name:<28}  {graph:<{column}}", text)
            for name, graph, text in zip(table["method"], graphs, table["description"], strict=True)
        ],
        28 + 2 + column,
        width,
    )
    sources = ", ".join(SOURCE_HEADS)
    note = (
        "'>' is the same separator (records and tables write it: 'mosaic>ace-full'), "
        "but a shell reads it unquoted as a redirect: type '/' or quote the name."
    )
    parts = [
        f"Method names: {GRAMMAR}. Every setting of one: ace-lab methods NAME",
        "",
        "Registered methods (graph read; * = through the Cypher store)",
        *methods,
        "",
        "Variants and graph families (any name of the head)",
        *_rows(list(VARIANTS), 28, width),
        "",
        "Compositions: <source>/<ACE method>, ACE's context policy over another method's evidence",
        *_rows(
            [
                ("mosaic/ace-full", "ACE-Full over MOSAIC's selected context"),
                ("arcrag/ace-adaptive", "Adaptive-ACE over ArcRAG's evidence"),
                (
                    "hipporag@hierarchical/…",
                    "any source name: hipporag@hierarchical/ace-fixed:gap+depth",
                ),
                ("sources", sources),
            ],
            28,
            width,
        ),
        *textwrap.wrap(note, width, break_on_hyphens=False),
    ]
    return "\n".join(parts)


def cmd_methods(args: argparse.Namespace) -> int:
    import pandas as pd

    from ace_lab.cli_commands.checks import check_method
    from ace_lab.registry import describe_method, spec

    if args.name is None:
        print(listing())
        return 0
    method = spec(check_method(args.name))
    print(f"{method.name} ({method.family} graph): {method.description}\n")
    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        print(describe_method(args.name).to_string(index=False))
    return 0
