"""The per-question chooser (``auto``) as a plugin: its names; it builds its candidates
through the registry's lookup."""

from __future__ import annotations

from ace_lab.chooser import specs
from ace_lab.methods.plugin import MethodPlugin

PLUGIN = MethodPlugin(
    package="ace_lab.chooser",
    title="Auto",
    owns=specs.is_auto,
    resolve=specs.resolve,
    variants=(
        (
            "auto, auto:<λ>",
            "the chooser: one method per question from its wording, at a cost weight "
            "λ per million input tokens (auto:20; auto:inf: the cheapest)",
        ),
    ),
    examples=("auto", "auto:20", "auto:inf"),
    display_names={"auto": "Auto"},
)
