"""Schema-constrained writing of ArcRAG's Cypher: which constraint, the calls, the checks.

With ArcRAG's ``grammar`` switch on, the Generator's (compile, refine) and the explorers'
queries are written under a constraint built from ``S_G``: a GBNF grammar
(:mod:`ace_lab.arc.grammar`) where the endpoint samples under one (``LLM.takes_grammar``: the
local llama.cpp tier, or a remote server marked ``ACE_LAB_LLM_GBNF``), otherwise a JSON-schema
query plan (:mod:`ace_lab.arc.query_plan`) compiled to Cypher. Under the grammar the prompts are
unchanged (the reply format is the one they ask for); under the plan the reply-format paragraph
is the plan's. Both add the anchors' labels to the anchors' lines, since the start node must
carry one. A reply a server returned without applying the grammar is checked against it
(:class:`~ace_lab.arc.gbnf.Recognizer`): a query outside the language is refused, never run.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, TypeVar

import openai
from pydantic import BaseModel

from ace_lab.arc.gbnf import Recognizer
from ace_lab.arc.grammar import cypher_grammar, explorer_grammar, query_grammar
from ace_lab.arc.query_plan import (
    compile_plan,
    cypher_reply_model,
    explorer_reply_model,
    plan_messages,
)
from ace_lab.arc.schema import StoreSchema
from ace_lab.llm import LLM
from ace_lab.llm.structured import JsonOutputError, parse_output

T = TypeVar("T", bound=BaseModel)

#: The constraints an attempt can be written under ("": none); :data:`PATTERNS` appended: hops
#: only along the graph's signatures (ArcRAG's ``patterns`` switch).
GBNF, JSON_PLAN, PATTERNS = "gbnf", "json-plan", "+patterns"
CONSTRAINTS = ("", GBNF, JSON_PLAN, GBNF + PATTERNS, JSON_PLAN + PATTERNS)
#: Attempts of one constrained call (the second at another seed) before the empty default.
CALL_ATTEMPTS = 2
#: Why a query outside the grammar is not run (its record's error).
OUTSIDE = "OutsideGrammar: the query is not in the schema grammar's language"


def constraint_for(llm: LLM, grammar: bool, patterns: bool = False) -> str:
    """The constraint ArcRAG's ``grammar`` (and ``patterns``) switch means on ``llm``'s
    endpoint."""
    if not grammar:
        return ""
    kind = GBNF if getattr(llm, "takes_grammar", False) else JSON_PLAN
    return kind + PATTERNS if patterns else kind


def _patterns(constraint: str) -> bool:
    return constraint.endswith(PATTERNS)


@lru_cache(maxsize=64)
def _recognizer(grammar: str) -> Recognizer:
    return Recognizer(grammar)


def outside(
    cypher: str,
    schema: StoreSchema,
    anchor_labels: Sequence[str],
    *,
    anchored: bool,
    parameters: bool = True,
    patterns: bool = False,
    anchor_patterns: Sequence[tuple[str, str, str]] = (),
) -> str | None:
    """:data:`OUTSIDE` when ``cypher`` is not in the query language, else None."""
    grammar = query_grammar(
        schema,
        tuple(anchor_labels),
        anchored=anchored,
        parameters=parameters,
        patterns=patterns,
        anchor_patterns=tuple(anchor_patterns),
    )
    language = _recognizer(grammar)
    return None if language.accepts(cypher.strip()) else OUTSIDE


def _gbnf_json(
    llm: LLM,
    messages: list[dict[str, str]],
    schema: type[T],
    grammar: str,
    *,
    tag: str,
    max_tokens: int,
    seed: int,
) -> T | None:
    """``schema``'s value from a reply sampled under ``grammar``; None when no attempt parses."""
    errors: list[str] = []
    for attempt in range(1, CALL_ATTEMPTS + 1):
        try:
            completion = llm.chat(
                messages,
                tag=tag,
                temperature=0.0 if attempt == 1 else 0.5,
                max_tokens=max_tokens,
                seed=seed + attempt - 1,
                grammar=grammar,
                accept=lambda text: _parses(text, schema),
            )
        except openai.BadRequestError as exc:  # a server that cannot read the grammar
            errors.append(f"attempt {attempt}: grammar refused: {str(exc)[:240]}")
            break
        try:
            return parse_output(completion.text, schema)
        except JsonOutputError as exc:
            errors.append(f"attempt {attempt}: {str(exc)[:240]}")
    llm._note_fallback(tag, len(errors), errors)
    return None


def _parses(text: str, schema: type[BaseModel]) -> bool:
    try:
        parse_output(text, schema)
    except JsonOutputError:
        return False
    return True


def write_cypher(
    llm: LLM,
    messages: list[dict[str, str]],
    reply: type[BaseModel],
    schema: StoreSchema,
    anchor_labels: Sequence[str],
    constraint: str,
    *,
    tag: str,
    seed: int,
    anchored: bool = True,
    anchor_patterns: Sequence[tuple[str, str, str]] = (),
) -> tuple[str, str | None]:
    """``(cypher, refusal)`` of one Generator call under ``constraint`` (``reply``: the
    unconstrained reply model, with a ``cypher`` field); ``refusal`` is why the query must not
    run (outside the grammar), None when it may. ``anchor_patterns``: with the patterns
    constraint, the signatures a first hop from the anchors may take (none given: the graph's)."""
    labels, patterns = tuple(anchor_labels), _patterns(constraint)
    # an unanchored Generator is Direct-Cypher's: its queries run with no parameters bound
    kw: dict[str, Any] = {"anchored": anchored, "parameters": anchored, "patterns": patterns}
    kw["anchor_patterns"] = tuple(anchor_patterns) if patterns else ()
    if constraint.startswith(GBNF):
        grammar = cypher_grammar(schema, labels, **kw)
        out = _gbnf_json(llm, messages, reply, grammar, tag=tag, max_tokens=600, seed=seed)
        cypher = out.cypher.strip() if out is not None else ""  # type: ignore[attr-defined]
        return cypher, (outside(cypher, schema, labels, **kw) if cypher else None)
    model = cypher_reply_model(schema, labels)
    result = llm.json(
        plan_messages(messages, "arc_query_plan"),
        model,
        tag=tag,
        default=lambda: None,  # type: ignore[arg-type, return-value]
        max_tokens=600,
        seed=seed,
    )
    if result.fallback or result.value is None:
        return "", None
    cypher = compile_plan(result.value.plan, schema, anchored=anchored)  # type: ignore[attr-defined]
    # a plan's hops are checked against the signatures after compiling (its schema has no states)
    return cypher, (outside(cypher, schema, labels, **kw) if kw["patterns"] else None)


def explorer_turn(
    llm: LLM,
    messages: list[dict[str, str]],
    turn: type[T],
    schema: StoreSchema,
    anchor_labels: Sequence[str],
    constraint: str,
    *,
    tag: str,
    seed: int,
) -> tuple[T, bool, dict[str, str]]:
    """``(turn, fell back, refusals)`` of one explorer turn under ``constraint``: the turn's
    queries as Cypher, and for each query outside the grammar, why it must not run."""
    labels, patterns = tuple(anchor_labels), _patterns(constraint)
    if constraint.startswith(GBNF):
        grammar = explorer_grammar(schema, labels, patterns=patterns)
        out = _gbnf_json(llm, messages, turn, grammar, tag=tag, max_tokens=800, seed=seed)
        if out is None:
            return turn(done=True), True, {}
        return out, False, _refused(out.queries, schema, labels, patterns)  # type: ignore[attr-defined]
    model = explorer_reply_model(schema, labels)
    result = llm.json(
        plan_messages(messages, "arc_explore_plan"),
        model,
        tag=tag,
        default=lambda: None,  # type: ignore[arg-type, return-value]
        max_tokens=800,
        seed=seed,
    )
    value: Any = result.value
    if result.fallback or value is None:
        return turn(done=True), True, {}
    queries = [compile_plan(p, schema) for p in value.plans]
    fields = value.model_dump(exclude={"plans"})
    refused = _refused(queries, schema, labels, patterns) if patterns else {}
    return turn(queries=queries, **fields), False, refused


def _refused(
    queries: Sequence[str], schema: StoreSchema, labels: tuple[str, ...], patterns: bool
) -> dict[str, str]:
    """Why each of an explorer's ``queries`` outside the language must not run."""
    refused = {}
    for cypher in filter(str.strip, queries):
        if why := outside(cypher, schema, labels, anchored=False, patterns=patterns):
            refused[cypher.strip()] = why
    return refused
