"""ace_lab.evidence and tokens: context rendering, budgets, tagging and merging."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ace_lab.evidence import Context, Evidence, fit_budget, merge, tag
from ace_lab.tokens import count_tokens, truncate


def _ev(i: int, kind: str = "passage", branch: str = "base", words: int = 10) -> Evidence:
    return Evidence(id=f"e{i}", kind=kind, text=" ".join(["w"] * words), branch=branch)


def test_unknown_kind_is_rejected():
    with pytest.raises(ValueError, match="kind"):
        Evidence(id="x", kind="paragraph", text="t")


def test_render_groups_under_headers_in_order():
    ctx = Context([_ev(1), _ev(2), _ev(3, kind="entity", branch="depth")])
    text = ctx.render()
    assert text.index("base · passage") < text.index("depth · entity")
    assert text.count("###") == 2


def test_render_respects_the_budget_and_reports_what_was_dropped():
    ctx = Context([_ev(i) for i in range(10)])
    kept, dropped = ctx.fit(45)
    assert len(kept) + len(dropped) == 10 and dropped
    assert count_tokens(Context(kept).render()) <= 45
    assert count_tokens(ctx.render(45)) <= 45


def test_a_large_item_is_dropped_but_later_small_ones_still_fit():
    ctx = Context([_ev(1, words=5), _ev(2, words=500), _ev(3, words=5)])
    kept, dropped = ctx.fit(40)
    assert [e.id for e in kept] == ["e1", "e3"] and [e.id for e in dropped] == ["e2"]


def test_tag_merge_and_fit_budget_keep_provenance():
    base = tag([_ev(1), _ev(2)], "base", 0)
    depth = tag([_ev(2), _ev(3)], "depth", 1, goal="g")
    merged = merge(base, {"depth": depth})
    assert [e.id for e in merged] == ["e1", "e2", "e3"]
    assert merged[1].meta["provenance"] == ["r0:base", "r1:depth"]
    assert merged[2].branch == "depth" and merged[2].meta["goal"] == "g"
    assert [e.id for e in fit_budget(merged, 30)] == ["e1", "e2"]


def test_truncate():
    assert truncate("a b c d", 2) == "a b"
    assert truncate("a b", 5) == "a b"


def test_merge_keeps_provenance_kind_and_level():
    shared = Evidence("e1", "summary", "A summary", level=2, source_ids=("c1",))
    base = [shared, Evidence("p1", "passage", "passage one")]
    depth = [replace(shared, branch="depth", round=1, score=0.9), Evidence("p2", "passage", "p")]
    depth[1] = replace(depth[1], branch="depth", round=1)
    merged = merge(base, {"depth": depth})
    assert [e.id for e in merged] == ["e1", "p1", "p2"]
    first = merged[0]
    assert first.meta["provenance"] == ["r0:base", "r1:depth"]
    assert (first.kind, first.level, first.source_ids, first.score) == ("summary", 2, ("c1",), 0.9)
    assert merged[2].meta["provenance"] == ["r1:depth"]
