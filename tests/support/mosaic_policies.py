"""What every MOSAIC exploration policy must satisfy, and random junk for the analyzer's
outputs (the fuzz tests of the policy and of the what-if controls)."""

from __future__ import annotations

import json
import math
import random

from ace_lab.mosaic.policy import MAX_TARGETS, STOP_THRESHOLDS, ExplorationPolicy


def assert_valid(policy: ExplorationPolicy) -> None:
    assert isinstance(policy, ExplorationPolicy)
    policy.validate()
    assert 5 <= policy.seed_count <= 12 and 2 <= policy.max_depth <= 4
    assert 1 <= policy.min_depth <= policy.max_depth and 4 <= policy.beam_width <= 24
    assert 8 <= policy.evidence_budget <= 16
    assert 2 <= policy.preservation_floor <= policy.evidence_budget
    assert policy.stop_threshold in STOP_THRESHOLDS and policy.cardinality in ("single", "list")
    assert len(policy.targets) <= MAX_TARGETS and all(isinstance(t, str) for t in policy.targets)
    json.dumps(policy.to_dict())


def junk(rng: random.Random, depth: int = 0):
    kind = rng.randrange(10 if depth < 2 else 7)
    return [
        lambda: rng.randint(-(10**6), 10**6),
        lambda: rng.uniform(-50, 50),
        lambda: rng.random() < 0.5,
        lambda: None,
        lambda: rng.choice(
            ["single", "list", "broad", "narrow", "specific", "vague", "", "3", "deep", "x" * 500]
        ),
        lambda: rng.choice([math.nan, math.inf, -math.inf, 1e308]),
        lambda: rng.choice(["Marie Curie", "Paris", ""]),
        lambda: [junk(rng, depth + 1) for _ in range(rng.randrange(7))],
        lambda: {str(rng.randrange(3)): junk(rng, depth + 1)},
        lambda: [rng.choice(["A", "B", " C ", "a"]) for _ in range(rng.randrange(9))],
    ][kind]()
