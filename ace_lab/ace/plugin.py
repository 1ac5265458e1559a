"""ACE as a plugin: its names, its composition over other methods' evidence, its report."""

from __future__ import annotations

from ace_lab.ace import knobs, specs
from ace_lab.ace.compose import SOURCE_BACKBONES, backbone_source, composed_spec
from ace_lab.methods.plugin import MethodPlugin

PLUGIN = MethodPlugin(
    package="ace_lab.ace",
    title="ACE",
    owns=specs.is_ace,
    resolve=lambda parts, lookup: specs.resolve(parts),
    registered=specs.REGISTERED,
    variants=(
        (
            "ace-fixed:<policy>",
            "one fixed ACE policy, its steps joined by +: gap, depth, breadth, "
            "prune (ace-fixed:gap+depth, also written ace/gap+depth)",
        ),
        (
            "<ace method>@<backbone>",
            "ACE over another backbone: hirag (default), graphrag (ace-full@graphrag)",
        ),
    ),
    examples=(
        "ace-fixed:gap+depth",
        "ace/gap+depth",
        "ace-full:b1500",
        "ace-full@graphrag",
        "hipporag@hierarchical/ace-fixed:gap+depth",
    ),
    display_names={
        "ace": "ACE",
        "ace-full": "Full-ACE",
        "ace-adaptive": "Adaptive-ACE",
        "ace-adaptive-fewshot": "Adaptive-ACE (few-shot)",
        "ace-fixed": "Fixed-ACE",
        "ace-fixed-multires": "Fixed-ACE (multi-res.)",
        "ace-generic-prompt": "Full-ACE (generic prompt)",
        "ace-wo-breadth": "Full-ACE w/o breadth",
        "ace-wo-depth": "Full-ACE w/o depth",
        "ace-wo-gap": "Full-ACE w/o gap",
        "ace-wo-pruning": "Full-ACE w/o pruning",
        "ace-wo-semantic-pruning": "Full-ACE w/o sem. pruning",
        "ace-wo-report-drop": "Full-ACE w/o report drop",
    },
    source_heads=tuple(SOURCE_BACKBONES),
    source=backbone_source,
    compose=composed_spec,
    compositions=(
        ("mosaic/ace-full", "ACE-Full over MOSAIC's selected context"),
        ("arcrag/ace-adaptive", "Adaptive-ACE over ArcRAG's evidence"),
        ("hipporag@hierarchical/…", "any source name: hipporag@hierarchical/ace-fixed:gap+depth"),
    ),
    report=specs.REPORT,
    what_if=knobs.CONTROLS,
)
