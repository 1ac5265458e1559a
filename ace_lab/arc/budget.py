"""The ArcRAG budget: retries, passes and exploration sizes as one frozen, validated object.

Budgets never reach a prompt, so a larger budget replays a smaller one's LLM calls from the
response cache: the retries × passes grid costs little more than its largest cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ace_lab.bounded import Bounded, bounded

#: The budget label grammar of method names, e.g. ``r3p5`` (3 attempts, 5 passes).
_LABEL = re.compile(r"r(\d+)p(\d+)\Z")


@dataclass(frozen=True)
class Budget(Bounded):
    """How much ArcRAG may try. ``retries`` counts Cypher *attempts* per subplan (1 = a single
    attempt, no refinement); ``passes`` caps the retrieve–answer loop (paper: 6)."""

    retries: int = bounded(3, lo=1, hi=10, help="Cypher attempts per subplan (1: no refinement)")
    passes: int = bounded(6, lo=1, hi=10, help="cap on retrieve–answer passes (paper: 6)")
    explorers: int = bounded(2, lo=0, hi=4, help="explorers run in parallel (0: no exploration)")
    explorer_turns: int = bounded(3, lo=1, hi=6, help="query batches each explorer may run")
    max_subplans: int = bounded(4, lo=1, hi=8, help="subplans the root planner may emit")
    timeout_ms: int = bounded(5000, lo=1, hi=120_000, help="time limit of one Cypher read, ms")
    max_rows: int = bounded(100, lo=1, hi=5000, help="row cap of one Cypher read")

    @property
    def label(self) -> str:
        """``r<retries>p<passes>``, the name suffix of this budget."""
        return f"r{self.retries}p{self.passes}"

    @classmethod
    def parse(cls, label: str, base: Budget | None = None) -> Budget:
        """``base`` (default budget) with retries and passes from a label like ``r3p5``."""
        m = _LABEL.match(label.strip())
        if m is None:
            raise ValueError(f"budget label {label!r} is not r<retries>p<passes>, e.g. r3p5")
        return replace(base or cls(), retries=int(m.group(1)), passes=int(m.group(2)))
