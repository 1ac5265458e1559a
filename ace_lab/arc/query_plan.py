"""A JSON-schema query plan compiled to Cypher, for endpoints that take no GBNF grammar.

The plan's labels, relationship types and property keys are ``Literal`` enums built from the
introspected ``S_G``, so the schema sent as ``response_format`` (and the validation of the
reply) refuses a name the graph lacks. :func:`compile_plan` turns a plan into one read-only
query deterministically: a path of up to three hops from the start node ``a`` (its label one of
the bound anchors' labels; a Generator plan always starts at ``$anchors``), each hop's
relationship scoped to ``$chunk_ids`` on chunk-backed graphs when the plan asks, literal filters
on enum keys, every variable returned. A compiled plan is a sentence of the Generator's grammar
(:mod:`ace_lab.arc.grammar`) unless a filter value holds a quote or a backslash.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from ace_lab.arc.grammar import MAX_HOPS, NODES, RELS, CypherLanguage
from ace_lab.arc.schema import StoreSchema, q
from ace_lab.graph.names import bounded_list, bounded_str
from ace_lab.prompts import load_prompt

#: The value of an enum field that leaves the label or type open.
ANY = "any"
#: Filter operators and their Cypher (case-insensitive: both sides lower-cased).
OPERATORS = {"equals": "=", "contains": "CONTAINS", "starts with": "STARTS WITH"}
#: Most filters and returned rows of one plan.
MAX_FILTERS = 4
MAX_LIMIT = 200


def _enum(values: Sequence[str], *extra: str) -> Any:
    names = tuple(dict.fromkeys([*values, *extra])) or (ANY,)
    return Literal[names]  # type: ignore[valid-type]


def plan_model(
    schema: StoreSchema, anchor_labels: Sequence[str] = (), *, explorer: bool = False
) -> type[BaseModel]:
    """The pydantic model of one query plan over ``schema`` (an explorer's may start away from
    the anchors, to look for aliases by name)."""
    lang = CypherLanguage.of(schema, anchor_labels)
    hop = create_model(
        "Hop",
        type=(_enum(lang.rel_types, ANY), ...),
        direction=(Literal["out", "in", "either"], ...),
        label=(_enum(lang.labels, ANY), ...),
    )
    condition = create_model(
        "Filter",
        node=(int, Field(ge=0, le=MAX_HOPS)),
        key=(_enum(lang.node_keys), ...),
        op=(Literal[tuple(OPERATORS)], ...),  # type: ignore[valid-type]
        value=(bounded_str(200), ...),
    )
    fields: dict[str, Any] = {
        "start_label": (_enum(lang.anchor_labels), ...),
        "hops": (bounded_list(hop, MAX_HOPS), Field(default_factory=list)),
        "filters": (bounded_list(condition, MAX_FILTERS), Field(default_factory=list)),
        "within_passages": (bool, True),
        "limit": (int, Field(default=25, ge=1, le=MAX_LIMIT)),
    }
    if explorer:
        fields["from_anchors"] = (bool, True)
    return create_model("ExplorerQueryPlan" if explorer else "QueryPlan", **fields)


def _string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def compile_plan(plan: BaseModel, schema: StoreSchema, *, anchored: bool = True) -> str:
    """The Cypher of ``plan`` (see the module docstring); ``anchored=False``: no ``$anchors``
    is bound (Direct-Cypher), so the path starts at every node of the start label."""
    hops = list(plan.hops)[:MAX_HOPS]
    path = f"(a:{q(plan.start_label)})"
    for i, h in enumerate(hops):
        types = "" if h.type == ANY else f":{q(h.type)}"
        rel = f"[{RELS[i]}{types}]"
        link = {"out": f"-{rel}->", "in": f"<-{rel}-", "either": f"-{rel}-"}[h.direction]
        label = "" if h.label == ANY else f":{q(h.label)}"
        path += f"{link}({NODES[i + 1]}{label})"
    where = []
    if anchored and getattr(plan, "from_anchors", True):
        where.append(f"{schema.node_id('a')} IN $anchors")
    if plan.within_passages and schema.chunk_backed:
        where += [schema.scope(RELS[i]) for i in range(len(hops))]
    for f in plan.filters:
        if f.node > len(hops):
            continue  # a filter on a node the path does not reach
        prop = f"toLower({NODES[f.node]}.{q(f.key)})"
        where.append(f"{prop} {OPERATORS[f.op]} {_string(f.value.lower())}")
    names = [NODES[0]] + [v for i in range(len(hops)) for v in (RELS[i], NODES[i + 1])]
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    return f"MATCH {path}{clause} RETURN {', '.join(names)} LIMIT {plan.limit}"


def cypher_reply_model(schema: StoreSchema, anchor_labels: Sequence[str] = ()) -> type[BaseModel]:
    """A Generator reply under the plan: ``{"plan": <QueryPlan>}``."""
    return create_model("CypherPlanOut", plan=(plan_model(schema, anchor_labels), ...))


def explorer_reply_model(schema: StoreSchema, anchor_labels: Sequence[str] = ()) -> type[BaseModel]:
    """An explorer turn under the plan: its queries are plans, the rest as without one."""
    return create_model(
        "ExplorerPlanTurn",
        plans=(bounded_list(plan_model(schema, anchor_labels, explorer=True), 8), []),
        descriptors=(bounded_list(str, 20), []),
        aliases=(bounded_list(list[str], 20), []),
        notes=(bounded_str(600), ""),
        done=(bool, False),
    )


#: The line where each Cypher prompt's reply format starts (replaced under the plan).
REPLY_MARK = "Reply with JSON only"


def plan_messages(messages: list[dict[str, str]], prompt: str) -> list[dict[str, str]]:
    """``messages`` with the reply format asked for by prompt ``prompt`` (``arc_query_plan``
    or ``arc_explore_plan``) in place of the Cypher reply format."""
    system = messages[0]["content"]
    cut = system.find(REPLY_MARK)
    head = system[:cut].rstrip() if cut != -1 else system
    format_prompt = load_prompt(prompt)
    user = format_prompt.messages(request=messages[1]["content"])[1]
    return [{"role": "system", "content": f"{head}\n\n{format_prompt.system}"}, user]
