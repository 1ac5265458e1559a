"""ace_lab.ace.adapt: semantic pruning that spares bridge evidence, the QA/QFS profiles and the
token budget (real MiniLM similarities)."""

from __future__ import annotations

from ace_lab.ace.adapt import AdaptConfig, adapt
from ace_lab.ace.policy import full_policy
from ace_lab.evidence import Evidence


def _bridge_items() -> list[Evidence]:
    path = Evidence(
        "path:a|b|c", "path", "Alpha --[x]-- Beta --[y]-- Gamma", meta={"nodes": ("a", "b", "c")}
    )
    return [
        Evidence("a", "entity", "zzz qqq unrelated words", meta={"nodes": ("a",)}),
        Evidence("r1", "relation", "kkk vvv", meta={"nodes": ("a", "c")}),
        Evidence("d", "entity", "completely unrelated noise", meta={"nodes": ("d",)}),
        Evidence("com:1", "report", "Lighthouse report", level=1),
        path,
    ]


def test_pruning_never_drops_bridge_evidence(embedder):
    items = _bridge_items()
    strict = AdaptConfig(prune_threshold=0.99)
    adapted = adapt(items, full_policy("qa"), ["lighthouse keeper"], embedder, strict)
    kept = {e.id for e in adapted.kept}
    assert {"a", "r1", "path:a|b|c"} <= kept
    reasons = dict((e.id, why) for e, why in adapted.dropped)
    assert reasons["d"].startswith("semantic pruning")
    assert reasons["com:1"].startswith("qa profile")


def test_qfs_profile_keeps_reports_and_no_pruning_keeps_everything(embedder):
    items = _bridge_items()
    qfs = adapt(items, full_policy("qfs").without("pruning"), ["q"], embedder)
    assert {e.id for e in qfs.kept} == {e.id for e in items} and not qfs.dropped
    assert qfs.kept[0].kind == "report"  # QFS puts the coarsest evidence first


def test_budget_drops_lowest_priority_first(embedder):
    items = [Evidence(f"p{i}", "passage", "word " * 60) for i in range(3)]
    items.append(Evidence("e", "entity", "Beta: an entity"))
    policy = full_policy().without("pruning")
    adapted = adapt(items, policy, ["q"], embedder, AdaptConfig(budget_tokens=150))
    kept = [e.id for e in adapted.kept]
    assert "e" in kept and len(kept) < len(items)
    assert all("token budget" in why for _, why in adapted.dropped)


def test_semantic_pruning_and_report_dropping_act_independently(embedder):
    items = _bridge_items()
    full = full_policy("qa")

    def dropped(policy, threshold: float = 0.99) -> dict[str, str]:
        config = AdaptConfig(prune_threshold=threshold)  # 0.99: every unprotected item is pruned
        adapted = adapt(items, policy, ["lighthouse keeper"], embedder, config)
        return {e.id: why.split(":")[0] for e, why in adapted.dropped}

    assert dropped(full) == {"d": "semantic pruning", "com:1": "qa profile"}
    # reports kept: the report is an item like any other, pruned only for its similarity
    keep = full.without("report-drop")
    assert dropped(keep) == {"d": "semantic pruning", "com:1": "semantic pruning"}
    assert dropped(keep, threshold=-1.0) == {}
    # pruning off, reports still dropped
    assert dropped(full.without("semantic-pruning")) == {"com:1": "qa profile"}
    assert dropped(full.without("pruning")) == {}  # ace-wo-pruning: both halves off
    assert dropped(full, threshold=-1.0) == {"com:1": "qa profile"}
