"""MOSAIC as a plugin: its names, its evidence source for compositions, its report."""

from __future__ import annotations

from ace_lab.methods.plugin import MethodPlugin, instance_source
from ace_lab.mosaic import knobs, specs
from ace_lab.mosaic.method import MOSAIC_HEADS, MOSAIC_METHODS
from ace_lab.mosaic.source import MosaicSource

PLUGIN = MethodPlugin(
    package="ace_lab.mosaic",
    title="MOSAIC",
    owns=specs.is_mosaic,
    resolve=lambda parts, lookup: specs.resolve(parts),
    registered=MOSAIC_METHODS,
    variants=(
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
    ),
    examples=(
        "mosaic-fixed:narrow",
        "mosaic/narrow",
        "mosaic-budget-matched:12x2",
        "mosaic@openie",
    ),
    display_names={
        "mosaic": "MOSAIC",
        "mosaic-fixed": "MOSAIC-fixed",
        "mosaic-budget-matched": "MOSAIC (budget-matched)",
    },
    source_heads=MOSAIC_HEADS,
    source=instance_source(MosaicSource),
    report=specs.REPORT,
    what_if=knobs.CONTROLS,
)
