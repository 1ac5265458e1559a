"""ace_lab.graph.typed.reflect: verdicts, reflection modes, an unreadable reflection."""

from __future__ import annotations

import pytest

from ace_lab.graph.typed import REFLECT_FILE, TypedConfig, apply_verdicts
from tests.support.extraction import (
    TYPED_EXTRACTIONS,
    TYPED_REPAIR,
    typed_prompt_of,
    typed_prompts,
    typed_reply,
)
from tests.support.graphs import build_typed_scripted


def test_apply_verdicts() -> None:
    triples = TYPED_EXTRACTIONS["Tidal lantern"]
    kept, counts = apply_verdicts(triples, ["drop", "repair"], [])
    # a repair without a corrected triple drops; a missing verdict keeps
    assert kept == [triples[2]] and dict(counts) == {"kept": 1, "dropped": 2, "repaired": 0}
    kept, counts = apply_verdicts(triples, ["keep", "keep", "repair"], [TYPED_REPAIR | {"n": 3}])
    assert kept[2] == TYPED_REPAIR and counts["repaired"] == 1


@pytest.mark.parametrize(("mode", "reflections"), [("all", 3), ("off", 0)])
def test_reflection_modes(settings, tmp_path, first_toy_chunks, mode, reflections):
    graph, client = build_typed_scripted(
        settings, tmp_path / "run", first_toy_chunks, config=TypedConfig(reflection=mode)
    )
    assert typed_prompts(client).count("typed_reflect") == reflections
    ids = set(graph.nodes["id"])
    assert ("ent:atlantis" in ids) == (mode == "off")
    assert graph.meta["reflection"]["mode"] == mode
    assert (tmp_path / "run" / REFLECT_FILE).is_file() == (mode != "off")


def test_unreadable_reflection_keeps_the_extraction(settings, tmp_path, first_toy_chunks):
    def broken(kwargs: dict) -> str:
        return "?" if typed_prompt_of(kwargs) == "typed_reflect" else typed_reply(kwargs)

    graph, _ = build_typed_scripted(settings, tmp_path / "run", first_toy_chunks, script=broken)
    assert "ent:atlantis" in set(graph.nodes["id"])
    assert graph.meta["reflection"]["fallbacks"] == 1
    assert graph.meta["reflection"]["dropped"] == 0
