"""Adaptive-ACE's topology router: one query-only LLM call, JSON, temperature 0.

Up to three attempts (retries use a new seed, see ``LLM.json``); if none parses, the label is
``OVERVIEW`` (paper, Appendix E.1). The label, the attempts and the fallback go into the trace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from ace_lab.ace.policy import FALLBACK_TOPOLOGY, Topology
from ace_lab.evidence import current_step
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt


class RouterOutput(BaseModel):
    topology: Literal["POINT", "CONTRAST", "CHAIN", "OVERVIEW"]


@dataclass(frozen=True)
class Route:
    topology: Topology
    attempts: int
    fallback: bool
    errors: tuple[str, ...] = ()


def route(llm: LLM, query: str, attempts: int = 3) -> Route:
    result = llm.json(
        load_prompt("ace_router").messages(query=query),
        RouterOutput,
        tag="ace.router",
        default=lambda: RouterOutput(topology=FALLBACK_TOPOLOGY),
        attempts=attempts,
        temperature=0.0,
        max_tokens=32,
    )
    decision = Route(result.value.topology, result.attempts, result.fallback, result.errors)
    step = current_step()
    if step is not None:
        step.outputs.update(
            topology=decision.topology, attempts=decision.attempts, fallback=decision.fallback
        )
        if decision.fallback:
            step.notes.append(f"router fell back to {FALLBACK_TOPOLOGY}: {list(decision.errors)}")
    return decision
