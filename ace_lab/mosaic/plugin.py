"""MOSAIC as a plugin: its names, its evidence source for compositions, its report."""

from __future__ import annotations

from ace_lab.methods.plugin import MethodPlugin, SourceFactory
from ace_lab.methods.spec import MethodSpec
from ace_lab.mosaic import knobs, specs
from ace_lab.mosaic.method import MOSAIC_HEADS, MOSAIC_METHODS, Mosaic
from ace_lab.mosaic.source import MosaicSource


def source(spec: MethodSpec) -> SourceFactory:
    """MOSAIC's selected context as a composition's C_base, built from the method ``spec`` names
    (its analyzer or fixed policy, its settings)."""

    def build(graph, llm):  # type: ignore[no-untyped-def]
        method = spec.make(graph, llm)
        assert isinstance(method, Mosaic)
        return MosaicSource(method)

    return build


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
    source=source,
    report=specs.REPORT,
    what_if=knobs.CONTROLS,
)
