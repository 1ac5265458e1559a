"""ArcRAG as a plugin: its names, its evidence source for compositions, its report."""

from __future__ import annotations

from ace_lab.arc import knobs, specs
from ace_lab.arc.names import ARC_HEADS, ARC_METHODS
from ace_lab.arc.source import ArcSource
from ace_lab.methods.plugin import MethodPlugin, instance_source

PLUGIN = MethodPlugin(
    package="ace_lab.arc",
    title="ArcRAG",
    owns=specs.is_arc,
    resolve=lambda parts, lookup: specs.resolve(parts),
    registered=ARC_METHODS,
    variants=(
        (
            "<arc head>:<tokens>",
            "ArcRAG's switches strict, grammar, patterns and its budget of Cypher "
            "attempts per subplan × passes, joined by + (arcrag:strict+r1p1)",
        ),
        (
            "<arc head>@<graph>",
            "ArcRAG on typed (default), openie or openie-bare (arcrag@openie-bare)",
        ),
    ),
    examples=("arcrag:strict+r1p1", "arcrag@openie-bare"),
    display_names={
        "arcrag": "ArcRAG",
        "arcrag-explorer": "ArcRAG Explorer",
        "arcrag-generator": "ArcRAG Generator",
        "direct-cypher": "Direct-Cypher",
    },
    source_heads=tuple(ARC_HEADS),
    source=instance_source(ArcSource),
    report=specs.REPORT,
    what_if=knobs.CONTROLS,
)
