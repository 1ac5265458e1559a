"""Adaptive-ACE's topology router: one query-only LLM call, JSON, temperature 0.

Two prompts (:data:`ROUTER_PROMPTS`): ``paper``, the paper's router prompt (Appendix E.1,
``ace_router``), and ``fewshot`` (``ace_router_fewshot``), the paper's Table 1 definitions with
decision rules and worked examples written for it (none is a question of an evaluation slice).
The examples are listed in the prompt file under ``### EXAMPLES`` and sent as earlier
user/assistant turns (:func:`router_messages`): with the examples inside the system message the
1.5B model still labelled nearly every HotpotQA question CONTRAST (a run not kept); as turns it
follows them.

Up to three attempts (retries use a new seed, see ``LLM.json``); if none parses, the label is
``OVERVIEW`` (paper, Appendix E.1). A label the model spells another way (``contrast``,
``Edge``, ``Comparison``) is read as the topology it names. The label, the raw label the model
wrote, the attempts and the fallback are a :class:`~ace_lab.ace.steps.RouterDecision`, recorded on
the open trace step.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, PrivateAttr, model_validator

from ace_lab.ace.policy import FALLBACK_TOPOLOGY, TOPOLOGIES, Topology
from ace_lab.ace.steps import RouterDecision
from ace_lab.evidence import current_step
from ace_lab.llm import LLM
from ace_lab.prompts import Prompt, load_prompt

RouterPrompt = Literal["paper", "fewshot"]
#: Router prompt choice → prompt file.
ROUTER_PROMPTS: dict[str, str] = {"paper": "ace_router", "fewshot": "ace_router_fewshot"}

#: Other spellings of the four labels: the paper's topology names and the prompt's glosses.
SYNONYMS: dict[str, Topology] = {
    "NODE": "POINT",
    "FACT LOOKUP": "POINT",
    "EDGE": "CONTRAST",
    "COMPARISON": "CONTRAST",
    "SEQUENTIAL DEPENDENCY": "CHAIN",
    "SUBGRAPH": "OVERVIEW",
    "THEMATIC SYNTHESIS": "OVERVIEW",
}


#: One worked example in a router prompt's ``### EXAMPLES`` block: ``Query: "q" -> {json}``.
_EXAMPLE = re.compile(r'^Query: "(.+)" -> (\{.+\})\s*$', re.MULTILINE)
_EXAMPLES_HEADING = re.compile(r"^### EXAMPLES.*$", re.MULTILINE)


def router_messages(prompt: Prompt, query: str) -> list[dict[str, str]]:
    """The chat for ``prompt`` and ``query``. A prompt with a ``### EXAMPLES`` block sends its
    examples as user/assistant turns before the query, the rest of its system text as the
    system message; a prompt without one is sent as it is."""
    messages = prompt.messages(query=query)
    heading = _EXAMPLES_HEADING.search(prompt.system)
    if heading is None:
        return messages
    block = prompt.system[heading.end() :]
    examples = _EXAMPLE.findall(block)
    rest = _EXAMPLE.sub("", block).strip()
    system = (prompt.system[: heading.start()].rstrip() + "\n\n" + rest).strip()
    turns = [
        {"role": role, "content": text}
        for example_query, reply in examples
        for role, text in (("user", prompt.user.format(query=example_query)), ("assistant", reply))
    ]
    return [{"role": "system", "content": system}, *turns, messages[-1]]


def normalise_label(raw: str) -> str:
    """``raw`` as one of the four labels when it names one (any case, quotes, a synonym);
    otherwise unchanged (and then invalid)."""
    label = " ".join(raw.strip().strip("'\"").replace("_", " ").split()).upper()
    if label in TOPOLOGIES:
        return label
    return SYNONYMS.get(label, raw)


class RouterOutput(BaseModel):
    topology: Literal["POINT", "CONTRAST", "CHAIN", "OVERVIEW"]
    #: The label as the model wrote it, before :func:`normalise_label` (not in the schema).
    _raw_label: str | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _normalise(cls, data: Any, handler: Any) -> RouterOutput:
        raw = data.get("topology") if isinstance(data, dict) else None
        if isinstance(raw, str):
            data = {**data, "topology": normalise_label(raw)}
        model = handler(data)
        model._raw_label = raw if isinstance(raw, str) else None
        return model


def route(
    llm: LLM, query: str, attempts: int = 3, prompt: RouterPrompt = "paper"
) -> RouterDecision:
    """The topology of ``query`` from the router prompt ``prompt`` (see :data:`ROUTER_PROMPTS`)."""
    if prompt not in ROUTER_PROMPTS:
        raise ValueError(f"unknown router prompt {prompt!r}; use one of {list(ROUTER_PROMPTS)}")
    result = llm.json(
        router_messages(load_prompt(ROUTER_PROMPTS[prompt]), query),
        RouterOutput,
        tag="ace.router",
        default=lambda: RouterOutput(topology=FALLBACK_TOPOLOGY),
        attempts=attempts,
        temperature=0.0,
        max_tokens=32,
    )
    raw = None if result.fallback else result.value._raw_label
    decision = RouterDecision(
        result.value.topology, result.attempts, result.fallback, result.errors, raw, prompt
    )
    step = current_step()
    if step is not None:
        step.record(decision)
        if decision.fallback:
            step.notes.append(f"router fell back to {FALLBACK_TOPOLOGY}: {list(decision.errors)}")
    return decision
