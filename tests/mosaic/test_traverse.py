"""ace_lab.mosaic seeds, traverse and stopping: per-target seeding keeps every target, the beam
and depth caps hold, and the stopping rule fires where a hand-made graph's known gains say."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ace_lab.mosaic.policy import FIXED_POLICIES, ExplorationPolicy
from ace_lab.mosaic.scoring import PathScorer
from ace_lab.mosaic.seeds import QUESTION, select_seeds
from ace_lab.mosaic.stopping import StopRule, completeness, novelty_gain, requirement_units
from ace_lab.mosaic.traverse import explore
from ace_lab.mosaic.view import GraphView

TARGETS = ("Tobias Quell", "Corvin Abernast", "Petra Abernast", "Ilse Marrin")


def test_per_target_seeding_keeps_every_target(toy_graph):
    view = GraphView(toy_graph)
    policy = ExplorationPolicy(seed_count=5, per_target=True, targets=TARGETS)
    chosen = select_seeds(view, "Which lighthouse keeps the oldest records?", policy)
    assert len(chosen.seeds) == 5 and len({s.node for s in chosen.seeds}) == 5
    assert {s.view for s in chosen.seeds} >= set(TARGETS)  # every target has a seed
    assert set(chosen.candidates) == {*TARGETS, QUESTION}
    for seed in chosen.seeds:
        assert view.is_entity(seed.node) and seed.view in seed.views
        assert seed.score == pytest.approx(0.6 * seed.entity_score + 0.4 * seed.relation_score)
    # Two targets, eight seeds: two each first, then the whole question gets its share.
    pair = replace(policy, seed_count=8, targets=TARGETS[:2])
    views = [s.view for s in select_seeds(view, "Which lighthouse is older?", pair).seeds]
    assert views[:4] == [TARGETS[0], TARGETS[1], TARGETS[0], TARGETS[1]]
    assert QUESTION in views[4:]
    plain = select_seeds(view, "Which lighthouse?", replace(policy, per_target=False))
    assert {s.view for s in plain.seeds} == {QUESTION} and set(plain.candidates) == {QUESTION}


@pytest.mark.parametrize(
    "policy",
    [
        FIXED_POLICIES["narrow"],
        FIXED_POLICIES["wide"],
        ExplorationPolicy(
            beam_width=4,
            max_depth=4,
            connectors=True,
            per_target=True,
            targets=TARGETS[:2],
            stop_threshold="deep",
        ),
    ],
)
def test_beam_and_depth_caps_hold(toy_graph, policy):
    view = GraphView(toy_graph)
    query = "Who founded the observatory that was paid for by the company Ilse Marrin co-founded?"
    seeds = select_seeds(view, query, policy).seeds
    found = explore(view, PathScorer(view, query, policy, seeds), seeds, policy, query)
    assert 1 <= len(found.depths) <= policy.max_depth
    assert found.paths_evaluated == sum(d.candidates for d in found.depths) > 0
    for record in found.depths:
        assert len(record.kept) <= policy.beam_width
        assert record.candidates >= len(record.kept) + len(record.pruned)
        scores = [p.score for p in record.kept + record.pruned]
        assert scores == sorted(scores, reverse=True)
        for path in record.kept + record.pruned:
            assert 1 <= path.depth <= policy.max_depth and len(set(path.nodes)) == len(path.nodes)
            assert len(path.nodes) == path.depth + 1
    if not policy.connectors:
        assert found.connectors_used == 0


# ------------------------------------------------------------------ stopping on a known graph
@pytest.fixture(scope="module")
def triangle():
    """Alpha, Beta, Gamma all joined (a triangle); Delta alone."""
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.graph.tables import GraphTables
    from ace_lab.retrieval import RetrievalGraph

    names = {"a": "Alpha", "b": "Beta", "c": "Gamma", "d": "Delta"}
    nodes = [
        {
            "id": "c1",
            "label": "Chunk",
            "name": "C1",
            "description": "Alpha Beta Gamma.",
            "source_ids": ["c1"],
        }
    ]
    nodes += [
        {"id": i, "label": "Entity", "name": n, "source_ids": ["c1"]} for i, n in names.items()
    ]
    edges = [
        {
            "id": f"r{a}{b}",
            "source": a,
            "target": b,
            "type": "RELATION",
            "weight": 1.0,
            "predicate": "links",
            "source_ids": ["c1"],
        }
        for a, b in (("a", "b"), ("a", "c"), ("b", "c"))
    ]
    tables = GraphTables.from_records(nodes, edges, {"family": "openie"})
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="triangle")


class FlatScorer(PathScorer):
    """Every hop and seed is fully relevant: each new item has mass 1, so gains are counts."""

    def components(self, path, edge, node, seen):
        return dict.fromkeys(
            ("relevance", "target", "specificity", "anchor", "transition", "coherence"), 1.0
        ) | {"hub": 0.0, "repetition": 0.0, "question_label": 0.0}

    def node_relevance(self, node):
        return 1.0


def run_triangle(graph, policy, query):
    view = GraphView(graph)
    seeds = [s for s in select_seeds(view, "Alpha", policy).seeds if s.node == "a"]
    return explore(view, FlatScorer(view, query, policy, seeds), seeds, policy, query)


def test_stopping_fires_on_a_hand_made_graph_with_known_gains(triangle):
    # depth 1: a-b, a-c add {rab, b, rac, c} to {a}: gain 4/5; depth 2: only rbc is new: 1/6.
    policy = ExplorationPolicy(seed_count=5, max_depth=4, min_depth=1)
    found = run_triangle(triangle, policy, "Alpha Beta")  # both units are reached at depth 1
    gains = [point["gain"] for point in found.curve]
    assert gains == [pytest.approx(0.8), pytest.approx(1 / 6, abs=1e-4)]
    assert found.stop_reason == "converged" and found.depth_reached == 2
    # Completeness never reaches the threshold: nothing to stop on until no path can grow.
    lost = run_triangle(triangle, replace(policy, stop_threshold="deep"), "zebra quokka")
    assert lost.stop_reason == "exhausted" and lost.depth_reached == 2
    assert [p["completeness"] for p in lost.curve[:2]] == [0.0, 0.0]
    # A minimum depth of 3 forbids stopping at depth 2; a depth cap of 2 stops there anyway.
    assert run_triangle(triangle, replace(policy, min_depth=3), "Alpha Beta").stop_reason == (
        "exhausted"
    )
    capped = run_triangle(triangle, replace(policy, max_depth=2), "zebra quokka")
    assert capped.stop_reason == "depth_cap" and len(capped.depths) == 2


def test_stop_rule_patience_threshold_and_cap():
    rule = StopRule(threshold=0.35, min_depth=2, max_depth=4)
    assert rule.observe(1, 0.1, 0.9) is None  # before the minimum depth
    assert rule.observe(2, 0.9, 0.9) is None  # gain still high
    assert rule.observe(3, 0.1, 0.34) is None  # low gain, completeness under 0.35
    assert rule.observe(4, 0.1, 0.2) == "depth_cap"
    assert StopRule(0.35, 1, 4).observe(1, 0.2, 0.35) == "converged"
    assert StopRule.of(ExplorationPolicy(stop_threshold="deep")).threshold == 0.5


def test_gain_and_completeness_helpers():
    assert novelty_gain({"x": 1.0, "y": 1.0}, {"x": 1.0, "z": 2.0}) == pytest.approx(1 / 4)
    assert novelty_gain({}, {}) == 0.0
    units = requirement_units("Who was born first, Tobias Quell or Ada?", ["Tobias Quell"])
    assert units == ["born", "first", "tobias", "quell", "ada", "tobias quell"]
    assert completeness(units, ["Tobias Quell was born"]) == pytest.approx(4 / 6)
    assert completeness([], []) == 1.0


def test_no_seeds_means_an_exhausted_exploration(triangle):
    from ace_lab.mosaic.traverse import Explorer

    view, policy = GraphView(triangle), ExplorationPolicy()
    explorer = Explorer(view, FlatScorer(view, "x", policy, []), [], policy, "x")
    assert explorer.done and explorer.result().stop_reason == "exhausted"
    assert explorer.result().depth_reached == 0 and explorer.result().paths_evaluated == 0
    with pytest.raises(RuntimeError):
        explorer.advance()
