"""Gap-aware differential-retrieval planner: gap analysis and both branch queries in one call.

With gap diagnosis on, the paper's planning prompt returns an ``analysis`` plus a Depth query
(``hi_local``, goal empowerment) and a Breadth query (``hi_global``, goal diversity). With gap
diagnosis off, a rewrite prompt derives the two queries from q and C_base without the analysis.
A query is assigned to a branch by its goal, then its mode, then its position; a branch the
output leaves out gets the original query. If the output cannot be parsed at all, the plan is
the paper's fallback: one local (Depth) retrieval with the original query.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from ace_lab.ace.policy import Branch
from ace_lab.ace.steps import GapPlan
from ace_lab.evidence import current_step
from ace_lab.graph.names import bounded_list, bounded_str
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

BRANCH_MODES: dict[Branch, str] = {"depth": "hi_local", "breadth": "hi_global"}
BRANCH_GOALS: dict[Branch, str] = {"depth": "empowerment", "breadth": "diversity"}


class PlannedQuery(BaseModel):
    query: bounded_str(300)
    mode: bounded_str(20) = ""
    goal: bounded_str(20) = ""


class PlanOutput(BaseModel):
    analysis: bounded_str(800) = ""
    queries: bounded_list(PlannedQuery, 2)


@dataclass(frozen=True)
class BranchQuery:
    branch: Branch
    query: str
    mode: str
    goal: str


@dataclass(frozen=True)
class Plan:
    analysis: str
    queries: dict[str, BranchQuery]
    fallback: bool = False
    attempts: int = 0
    errors: tuple[str, ...] = field(default=())

    def payload(self) -> GapPlan:
        """What the ``plan`` step records: the analysis, one query per branch, the fallback."""
        return GapPlan(self.analysis, {b: q.query for b, q in self.queries.items()}, self.fallback)


def _branch_of(item: PlannedQuery, position: int) -> Branch:
    text = f"{item.goal} {item.mode}".lower()
    if "empower" in text or "local" in text or "depth" in text:
        return "depth"
    if "divers" in text or "global" in text or "breadth" in text:
        return "breadth"
    return "depth" if position == 0 else "breadth"


def assign_branches(output: PlanOutput, query: str) -> dict[str, BranchQuery]:
    """One query per branch (see module docstring); the original query fills a missing one."""
    chosen: dict[str, BranchQuery] = {}
    for position, item in enumerate(output.queries):
        branch = _branch_of(item, position)
        if branch in chosen:  # two queries claim one branch: the second takes the other
            branch = "breadth" if branch == "depth" else "depth"
        text = item.query.strip() or query
        chosen[branch] = BranchQuery(branch, text, BRANCH_MODES[branch], BRANCH_GOALS[branch])
    for branch in ("depth", "breadth"):
        chosen.setdefault(branch, BranchQuery(branch, query, BRANCH_MODES[branch], "original"))
    return {b: chosen[b] for b in ("depth", "breadth")}


def original_query_plan(query: str, branches: tuple[str, ...]) -> Plan:
    """No planning call: every branch retrieves with the original query (Fixed Multi-Res.)."""
    queries = {b: BranchQuery(b, query, BRANCH_MODES[b], "original") for b in branches}  # type: ignore[index]
    return Plan(analysis="", queries=queries)


def plan(llm: LLM, query: str, context: str, *, gap: bool = True, attempts: int = 1) -> Plan:
    prompt = "ace_planner" if gap else "ace_rewrite"
    result = llm.json(
        load_prompt(prompt).messages(query=query, context=context),
        PlanOutput,
        tag=f"ace.{'planner' if gap else 'rewrite'}",
        default=lambda: PlanOutput(analysis="", queries=[PlannedQuery(query=query)]),
        attempts=attempts,
        temperature=0.0,
        max_tokens=384,
    )
    if result.fallback:
        fallback = BranchQuery("depth", query, BRANCH_MODES["depth"], "fallback")
        made = Plan("", {"depth": fallback}, True, result.attempts, result.errors)
    else:
        analysis = result.value.analysis.strip() if gap else ""
        made = Plan(analysis, assign_branches(result.value, query), False, result.attempts)
    step = current_step()
    if step is not None and made.fallback:
        step.notes.append(
            "planner output unparseable: one local retrieval with the original query "
            f"({list(made.errors)})"
        )
    return made
