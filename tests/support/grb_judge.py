"""A scripted GraphRAG-Bench judge (replies per prompt, in order) and a two-axis embedder, for
the tests of the judged metrics."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ace_lab.prompts import load_prompt

PROMPTS = (
    "grb_statements",
    "grb_correctness",
    "grb_coverage_facts",
    "grb_coverage",
    "grb_evidence_recall",
    "grb_context_relevance",
    "grb_faithfulness",
)


class Judge:
    """A scripted judge: per prompt, a list of replies served in order (the last one repeats),
    each a string or a callable of the user message. Records which prompts were asked."""

    def __init__(self, **replies: Any) -> None:
        self.replies = {
            name: list(r) if isinstance(r, list) else [r] for name, r in replies.items()
        }
        self.asked: list[tuple[str, str]] = []
        self.by_system = {load_prompt(name).system: name for name in PROMPTS}

    def __call__(self, kwargs: dict) -> str:
        name = self.by_system[kwargs["messages"][0]["content"]]
        user = kwargs["messages"][-1]["content"]
        self.asked.append((name, user))
        queue = self.replies[name]
        reply = queue.pop(0) if len(queue) > 1 else queue[0]
        return reply(user) if callable(reply) else reply

    def count(self, name: str) -> int:
        return sum(1 for asked, _ in self.asked if asked == name)


class FixedEmbedder:
    """Two texts: 'A…' on the x axis, anything else on the y axis (cosine 0, similarity 0.5)."""

    model_id = "fixed-test-embedder"
    dim = 2

    def encode(self, texts: list[str]) -> Any:
        return np.asarray([[1.0, 0.0] if t.startswith("A") else [0.0, 1.0] for t in texts])


def statements_reply(user: str) -> str:
    text = user.split("Answer: ", 1)[1]
    return json.dumps({"statements": [s.strip() + "." for s in text.split(".") if s.strip()]})
