"""What the scripted model extracts when a graph is built: the hierarchical graph's entities,
summaries and communities, the OpenIE answers and the typed schema, triples and verdicts for the
first three toy chunks."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from tests.support.scripted import ScriptedClient


def title_of(kwargs: dict) -> str:
    """The ``Title:`` line of a request's user message (which chunk the model is asked about)."""
    return kwargs["messages"][-1]["content"].split("Title: ", 1)[1].split("\n", 1)[0]


def prompt_of(kwargs: dict, names: tuple[str, ...]) -> str:
    """Which of the prompt files ``names`` a request's system message comes from."""
    from ace_lab.prompts import load_prompt

    system = kwargs["messages"][0]["content"]
    for name in names:
        if system == load_prompt(name).system:
            return name
    raise AssertionError(f"unexpected prompt: {system[:80]}")


# ------------------------------------------------------------------ hierarchical
def hierarchy_config() -> Any:
    """Small layers, so that the toy corpus gets summaries and communities."""
    from ace_lab.graph.hierarchy import HierarchyConfig  # deferred: a heavy import

    return HierarchyConfig(cluster_size=4, min_layer_size=4, community_min_size=2)


def hierarchy_reply(kwargs: dict) -> str:
    """Plays the model: capitalised words become entities, neighbours become relations."""
    system = kwargs["messages"][0]["content"]
    user = kwargs["messages"][-1]["content"]
    if "extract a knowledge graph" in system:
        text = user.split("Text:", 1)[1]
        names = list(dict.fromkeys(re.findall(r"\b[A-Z][a-z]{3,}\b", text)))[:6]
        return json.dumps(
            {
                "entities": [[n, "CONCEPT", f"{n} appears in the text."] for n in names],
                "relations": [
                    [a, b, f"{a} relates to {b}.", 5] for a, b in itertools.pairwise(names)
                ],
            }
        )
    if "levels of abstraction" in system:
        first = re.search(r"- ([^:]+):", user).group(1)
        return json.dumps({"name": f"Theme of {first}", "description": "A group."})
    if "communities of a knowledge graph" in system:
        return json.dumps({"title": "A community", "summary": "Members relate.", "rating": 7})
    return "merged description"


# ------------------------------------------------------------------ openie
# What the scripted model "extracts" from each of the first three toy chunks, by title.
OPENIE_PROMPTS = ("openie_joint", "openie_ner", "openie_triples")
OPENIE_ANSWERS = {
    "Ilse Marrin": {
        "named_entities": ["Ilse Marrin", "Kesterholm", "Varrowmere Lantern Works"],
        "triples": [
            ["Ilse Marrin", "born in", "Kesterholm"],
            ["Ilse Marrin", "co-founded", "The Varrowmere Lantern Works"],
            ["", "moved to", "Varrowmere"],  # empty subject: dropped
        ],
    },
    "Tidal lantern": {
        "named_entities": ["Tidal lantern", "Ilse Marrin", "Lake Varrow"],
        "triples": [["Ilse Marrin", "demonstrated the first one on", "Lake Varrow"]],
    },
    "Varrowmere Lantern Works": {
        "named_entities": ["Varrowmere Lantern Works", "1889"],
        "triples": [["Varrowmere Lantern Works", "was founded in", "1889"]],
    },
}


def openie_reply(kwargs: dict) -> str:
    """Answers the OpenIE prompt being asked, for the chunk being asked about."""
    answer = OPENIE_ANSWERS[title_of(kwargs)]
    prompt = prompt_of(kwargs, OPENIE_PROMPTS)
    if prompt == "openie_ner":
        return json.dumps({"named_entities": answer["named_entities"]})
    if prompt == "openie_triples":
        return json.dumps({"triples": answer["triples"]})
    return json.dumps(answer)


# ------------------------------------------------------------------ typed
# A schema proposal, and extractions for the first three toy chunks, by title. Only the tidal
# lantern chunk has triples whose ends are not both in its text ("Atlantis", "Great Flood").
TYPED_PROMPTS = ("typed_schema", "typed_extract", "typed_reflect")
TYPED_PROPOSAL = {
    "node_types": ["person", "Organization", "place", "Chunk", "sports team", "PERSON"],
    "relation_types": ["born in", "co-founded", "locatedIn", "MENTIONED_IN", "demonstrated at"],
}
TYPED_NODE_TYPES = ["Person", "Organization", "Place", "SportsTeam"]
TYPED_RELATION_TYPES = ["BORN_IN", "CO_FOUNDED", "LOCATED_IN", "DEMONSTRATED_AT"]


def typed_triple(s: str, st: str, r: str, o: str, ot: str) -> dict[str, str]:
    return {"subject": s, "subject_type": st, "relation": r, "object": o, "object_type": ot}


_t = typed_triple
TYPED_EXTRACTIONS = {
    "Ilse Marrin": [
        _t("Ilse Marrin", "Person", "BORN_IN", "Kesterholm", "Place"),
        _t("Ilse Marrin", "Person", "CO_FOUNDED", "the Varrowmere Lantern Works", "Organization"),
    ],
    "Tidal lantern": [
        _t("Ilse Marrin", "Person", "DEMONSTRATED_AT", "Lake Varrow", "Place"),
        _t("Ilse Marrin", "Person", "BORN_IN", "Atlantis", "Place"),
        _t("Great Flood of 1897", "Place", "LOCATED_IN", "Estlund Maritime Museum", "Place"),
    ],
    "Varrowmere Lantern Works": [
        _t("Varrowmere Lantern Works", "Organization", "LOCATED_IN", "Brinemouth", "Place"),
    ],
}
TYPED_REPAIR = _t("Tidal lantern", "Organization", "LOCATED_IN", "Estlund Maritime Museum", "Place")


def typed_reply(kwargs: dict) -> str:
    """Answers the typed prompt being asked: the proposal, extractions, reflection verdicts."""
    prompt = prompt_of(kwargs, TYPED_PROMPTS)
    if prompt == "typed_schema":
        return json.dumps(TYPED_PROPOSAL)
    title = title_of(kwargs)
    if prompt == "typed_extract":
        return json.dumps({"triples": TYPED_EXTRACTIONS[title]})
    if title == "Tidal lantern":
        return json.dumps(
            {"verdicts": ["keep", "drop", "repair"], "repairs": [TYPED_REPAIR | {"n": 3}]}
        )
    n = len(TYPED_EXTRACTIONS[title])
    return json.dumps({"verdicts": ["keep"] * n, "repairs": []})


def typed_prompt_of(kwargs: dict) -> str:
    return prompt_of(kwargs, TYPED_PROMPTS)


def typed_prompts(client: ScriptedClient) -> list[str]:
    """The typed prompt of every request the client received, in order."""
    return [typed_prompt_of(r) for r in client.requests]
