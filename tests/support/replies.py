"""What the scripted model replies to the methods: ACE's router, planner and answer, MOSAIC's
analyzer, and every ArcRAG agent."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

#: A tagged QA reply, for methods whose answer text is not under test.
QA_REPLY = "Reasoning: x\nResult: [FINAL_ANSWER] y [/FINAL_ANSWER]"


# ------------------------------------------------------------------ ACE
def ace_reply(kwargs: dict) -> str:
    """Plays the model for ACE: router POINT, a two-query plan, a tagged answer."""
    system = kwargs["messages"][0]["content"]
    if "Strategic Router" in system:
        return '{"topology": "POINT"}'
    if "Retrieval Planner" in system or "rewrite a query" in system:
        return json.dumps(
            {
                "analysis": "the museum's city is missing",
                "queries": [
                    {"query": "tidal lantern museum", "mode": "hi_local", "goal": "empowerment"},
                    {"query": "Brinemouth museums", "mode": "hi_global", "goal": "diversity"},
                ],
            }
        )
    return "Reasoning: it is kept there.\nResult: [FINAL_ANSWER] Brinemouth [/FINAL_ANSWER]"


# ------------------------------------------------------------------ MOSAIC: scripted analyzer
#: What the scripted analyzer reports (a comparison of two targets, mediated, two hops).
MOSAIC_SIGNALS = {
    "cardinality": "single", "targets": ["Ilse Marrin", "Brinemouth"], "comparison": True,
    "mediated": True, "depth": 2, "anchoring": "specific", "breadth": "narrow",
}  # fmt: skip


def mosaic_reply(signals: Any = None) -> Callable[[dict], str]:
    """Plays the model for MOSAIC: ``signals`` (JSON text or an object) for the analyzer
    prompt, a tagged answer for everything else."""

    def reply(kwargs: dict) -> str:
        if "MOSAIC query analyzer" in kwargs["messages"][0]["content"]:
            given = MOSAIC_SIGNALS if signals is None else signals
            return given if isinstance(given, str) else json.dumps(given)
        return QA_REPLY

    return reply


# ------------------------------------------------------------------ ArcRAG: scripted agents
#: Which ArcRAG prompt a request is, by a phrase of its system message.
ARC_PROMPTS = {
    "rewrite": "rewrite a question for retrieval", "phrases": "extract search phrases",
    "explore": "explore a knowledge graph", "plan": "You plan retrieval",
    "bind": "attach anchors", "compile": "compile one step", "refine": "repair a read-only",
    "direct": "translate a question", "sufficient": "judge whether an answer",
}  # fmt: skip
ARC_QUESTION = "Where was the co-founder of the Varrowmere Lantern Works born?"
ARC_DEFAULTS: dict[str, Any] = {
    "rewrite": {"query": ARC_QUESTION},
    "phrases": {"phrases": ["Varrowmere Lantern Works", "Ilse Marrin", "Zorblax Tower"]},
    "explore": {
        "queries": ["MATCH (a)-[r]-(b) WHERE a.id IN $anchors RETURN a, r, b LIMIT 5"],
        "descriptors": ["co-founded"], "aliases": [["Ilse Marrin", "I. Marrin"]],
        "notes": "the founder link is there", "done": True,
    },
    "plan": {"answer_type": "entity", "subplans": [
        {"goal": "birthplace of the co-founder", "hops": ["co-founded", "born in"]}]},
    "bind": {"bindings": [{"subplan": 0, "anchors": ["ent:ilse marrin", "not-an-anchor"]}]},
    "compile": {"cypher": "MATCH (a)-[r]->(b) RETURN a, r, b LIMIT 3"},
    "refine": {"cypher": "MATCH (a)-[r]->(b) RETURN a, r, b LIMIT 3"},
    "direct": {"cypher": "MATCH (a)-[r]->(b) RETURN a, r, b LIMIT 3"},
    "sufficient": {"sufficient": True, "missing": "", "follow_up": ""},
}  # fmt: skip


def arc_prompt(kwargs: dict) -> str:
    """The ArcRAG prompt key of a request ("answer" for the shared answer prompt)."""
    system = kwargs["messages"][0]["content"]
    return next((k for k, phrase in ARC_PROMPTS.items() if phrase in system), "answer")


def arc_reply(**overrides: Any) -> Callable[[dict], str]:
    """Plays every ArcRAG agent: ``ARC_DEFAULTS`` unless overridden by prompt key; a value
    may be an object (sent as JSON), raw text, or a callable of the request kwargs."""
    script = {**ARC_DEFAULTS, **overrides}

    def reply(kwargs: dict) -> str:
        key = arc_prompt(kwargs)
        if key == "answer":
            return "Reasoning: x\nResult: [FINAL_ANSWER] Kesterholm [/FINAL_ANSWER]"
        value = script[key]
        value = value(kwargs) if callable(value) else value
        return value if isinstance(value, str) else json.dumps(value)

    return reply
