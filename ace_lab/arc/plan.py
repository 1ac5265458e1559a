"""Plan: the root planner fixes the answer type and subplans; a planner step binds anchors.

Algorithm 1, line 11 (RootPlanner + PlannerAgent in the paper's code). The root planner reads
``S_G``, ``Ŝ_q`` and ``I_q`` and emits at most ``budget.max_subplans`` ordered subplans; one of
them is always an open neighbourhood scan of the anchors (added when the model left it out),
so some evidence is gathered even when targeted subplans fail. The binding step attaches each
subplan's anchors, keeping only identifiers that are anchors. Malformed planner output falls
back to the neighbourhood scan alone with every anchor bound; malformed bindings bind every
anchor to every subplan. Both fallbacks are recorded in :attr:`Plan.fallbacks`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field

from ace_lab.arc.budget import Budget
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.schema import StoreSchema
from ace_lab.arc.steps import ArcPlan, PlannedSubplan
from ace_lab.graph.names import bounded_list, bounded_str
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

#: The answer type when the planner gives none.
DEFAULT_ANSWER_TYPE = "text"
SCAN_GOAL = "open neighbourhood scan of the anchors"


class SubplanOut(BaseModel):
    goal: bounded_str(400) = ""
    hops: bounded_list(str, 6) = Field(default_factory=list)
    open_scan: bool = False


class PlanOut(BaseModel):
    answer_type: bounded_str(40) = DEFAULT_ANSWER_TYPE
    subplans: bounded_list(SubplanOut, 12) = Field(default_factory=list)


class Binding(BaseModel):
    subplan: int = 0
    anchors: bounded_list(str, 20) = Field(default_factory=list)


class BindOut(BaseModel):
    bindings: bounded_list(Binding, 12) = Field(default_factory=list)


@dataclass(frozen=True)
class Subplan:
    index: int
    goal: str
    hops: tuple[str, ...]
    open_scan: bool
    anchors: tuple[str, ...]

    def render(self) -> str:
        hops = " -> ".join(self.hops) or "(any relation)"
        kind = "open neighbourhood scan" if self.open_scan else "traversal"
        return f"{self.goal} [{kind}; hops: {hops}]"

    def recorded(self, pass_index: int) -> PlannedSubplan:
        """The trace's payload of this subplan in pass ``pass_index``."""
        return PlannedSubplan(
            pass_index, self.index, self.goal, self.hops, self.open_scan, self.anchors
        )


@dataclass(frozen=True)
class Plan:
    answer_type: str
    subplans: tuple[Subplan, ...]
    fallbacks: tuple[str, ...] = ()

    def recorded(self, pass_index: int, query: str) -> ArcPlan:
        """The trace's payload of this plan, for pass ``pass_index`` answering ``query``."""
        subplans = tuple(sp.recorded(pass_index) for sp in self.subplans)
        return ArcPlan(pass_index, query, self.answer_type, subplans, self.fallbacks)


def scan_plan(anchors: list[str], answer_type: str = DEFAULT_ANSWER_TYPE, why: str = "") -> Plan:
    """The neighbourhood scan alone: the planner's fallback."""
    scan = Subplan(0, SCAN_GOAL, (), True, tuple(anchors))
    return Plan(answer_type, (scan,), (why,) if why else ())


def question_plan(question: str, anchors: list[str]) -> Plan:
    """No planner (ablations): one subplan, the question itself, from every anchor."""
    return Plan(DEFAULT_ANSWER_TYPE, (Subplan(0, question, (), False, tuple(anchors)),))


def plan(
    llm: LLM, schema: StoreSchema, interface: QueryInterface, question: str, budget: Budget
) -> Plan:
    """Root planner + anchor binding (see the module docstring for the fallbacks)."""
    anchors = [a.key for a in interface.anchors]
    result = llm.json(
        load_prompt("arc_plan").messages(
            schema=schema.render(), interface=interface.render(), question=question
        ),
        PlanOut,
        tag="arc.plan",
        default=PlanOut(),
        max_tokens=600,
    )
    out = result.value
    answer_type = out.answer_type.strip().lower() or DEFAULT_ANSWER_TYPE
    raw = [s for s in out.subplans if s.goal.strip() or s.hops]
    if result.fallback or not raw:
        return scan_plan(anchors, answer_type, "planner output unusable: neighbourhood scan only")
    fallbacks: list[str] = []
    targeted = [s for s in raw if not s.open_scan][: budget.max_subplans - 1]
    subplans = [(s.goal.strip() or " -> ".join(s.hops), tuple(s.hops), False) for s in targeted]
    subplans.append((SCAN_GOAL, (), True))
    if not any(s.open_scan for s in raw):
        fallbacks.append("planner gave no neighbourhood scan: added")
    bound = _bind(llm, question, interface, subplans, fallbacks)
    return Plan(
        answer_type,
        tuple(
            Subplan(i, goal, hops, scan, tuple(bound.get(i) or anchors))
            for i, (goal, hops, scan) in enumerate(subplans)
        ),
        tuple(fallbacks),
    )


def _bind(
    llm: LLM, question: str, interface: QueryInterface, subplans: list, fallbacks: list[str]
) -> dict[int, list[str]]:
    """Subplan index → its anchors (only known anchor identifiers survive)."""
    known = {a.key for a in interface.anchors}
    if not known:
        return {}
    listed = "\n".join(f"- {a.text} [{a.key}]" for a in interface.anchors)
    shown = "\n".join(
        f"{i}. {goal} (hops: {', '.join(hops) or 'any'})"
        for i, (goal, hops, _) in enumerate(subplans)
    )
    result = llm.json(
        load_prompt("arc_bind").messages(question=question, anchors=listed, subplans=shown),
        BindOut,
        tag="arc.bind",
        default=BindOut(),
        max_tokens=300,
    )
    if result.fallback:
        fallbacks.append("binding output unusable: every anchor bound to every subplan")
    bound: dict[int, list[str]] = {}
    for b in result.value.bindings:
        keys = [k for k in b.anchors if k in known]
        if len(keys) < len(b.anchors):
            fallbacks.append(f"subplan {b.subplan}: dropped unknown anchors")
        if keys and 0 <= b.subplan < len(subplans):
            bound[b.subplan] = keys
    return bound
