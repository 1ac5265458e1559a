"""Compact extraction: entities and triples as short ``|``-separated lines under a grammar.

Today's extraction asks for JSON (arrays, not objects, already: see
:mod:`ace_lab.graph.hierarchy.extract`), and generation is most of a build's cost on a CPU
(≈ 12 generated against ≈ 76 prompt tokens/s). The *compact* format drops the JSON syntax
(brackets, quotes, commas, a key per list) and the small model's room to wander: the reply is
lines, one item each, and a llama.cpp GBNF grammar (:func:`grammar`) lets the server sample
nothing else. Each family keeps its own fields and its JSON extraction's result dict, so
everything after extraction is unchanged:

* hierarchical: ``E|name|TYPE|description`` and ``R|source|target|description|strength``
  (strength 1-10);
* OpenIE: ``E|name`` and ``T|subject|predicate|object``;
* typed: ``T|subject|SubjectType|RELATION|object|ObjectType``, the types and relations
  enumerated in the grammar from the induced schema.

A field is any text without ``|`` or a line break. The grammar has no bounded repetition
(llama.cpp expands ``{0,n}`` into n nested rules and slows to a crawl): the output is bounded
by the call's token cap, and the parser keeps the first ``max_*`` items of each kind, as the
JSON schemas' ``maxItems`` did. An endpoint that takes no grammar (``LLM.takes_grammar`` false)
gets the same prompt without one; a line that does not parse is skipped, never an error.
Which format a graph was built with is part of its identity
(:func:`extraction_label`: its folder's model label ends in ``-compact``), so graphs built
with JSON keep loading as before and the two never share extraction records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ace_lab.data import Chunk
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

#: The extraction formats every family takes (``json``: today's default).
FORMATS = ("json", "compact")
COMPACT = "compact"
#: Fields per line kind, per family (the first field of a line is its kind letter).
HIERARCHICAL = {
    "E": ("name", "type", "description"),
    "R": ("source", "target", "description", "strength"),
}
OPENIE = {"E": ("name",), "T": ("subject", "predicate", "object")}
TYPED = {"T": ("subject", "subject_type", "relation", "object", "object_type")}


def extraction_label(model_label: str, extraction: str) -> str:
    """The folder label of a graph built by ``model_label`` with ``extraction``: unchanged for
    JSON (old graphs load as before), ``<label>-compact`` for the compact format."""
    if extraction not in FORMATS:
        raise ValueError(f"unknown extraction format {extraction!r}; choose from {FORMATS}")
    return model_label if extraction == "json" else f"{model_label}-{COMPACT}"


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def grammar(layout: Mapping[str, Sequence[str]], enums: Mapping[str, Sequence[str]] = {}) -> str:
    """The GBNF grammar of replies in ``layout`` (kind letter → fields): any number of lines,
    each one item. A field named in ``enums`` is one of its values; ``strength`` an integer
    1-10; any other field text without ``|`` or a line break."""
    rules = ["root ::= line*", "line ::= " + " | ".join(f"line-{k}" for k in layout)]
    used: dict[str, str] = {}
    for kind, names in layout.items():
        parts = [_literal(f"{kind}|")]
        for i, name in enumerate(names):
            if name in enums:
                rule = f"enum-{name.replace('_', '-')}"
                used[rule] = " | ".join(_literal(v) for v in enums[name])
            else:
                rule = "strength" if name == "strength" else "field"
            parts.append(rule if i == 0 else f'"|" {rule}')
        rules.append(f"line-{kind} ::= {' '.join(parts)} " + r'"\n"')
    rules += [f"{rule} ::= {body}" for rule, body in used.items()]
    rules += [r"field ::= [^|\n]+", 'strength ::= [1-9] | "10"']
    return "\n".join(rules) + "\n"


def parse_lines(text: str, layout: Mapping[str, Sequence[str]]) -> dict[str, list[dict[str, str]]]:
    """Items by kind letter from a compact reply: each line ``K|f1|f2…`` with exactly the
    fields of ``K`` (trimmed, none empty); every other line is skipped."""
    found: dict[str, list[dict[str, str]]] = {kind: [] for kind in layout}
    for line in text.splitlines():
        kind, _, rest = line.strip().partition("|")
        names = layout.get(kind.strip().upper())
        if names is None:
            continue
        values = [" ".join(v.split()) for v in rest.split("|")]
        if len(values) == len(names) and all(values):
            found[kind.strip().upper()].append(dict(zip(names, values, strict=True)))
    return found


def _ask(llm: LLM, prompt: str, variables: dict[str, str], rules: str, tag: str, cap: int) -> str:
    """One compact extraction call (the grammar sent where the endpoint samples under one)."""
    extra = {"grammar": rules} if getattr(llm, "takes_grammar", False) else {}
    messages = load_prompt(prompt).messages(**variables)
    return llm.chat(messages, tag=tag, temperature=0.0, max_tokens=cap, **extra).text


def extract_hierarchical(chunk: Chunk, llm: LLM, config: Any) -> dict[str, Any]:
    """The hierarchical family's extraction result of one chunk, from compact lines."""
    text = _ask(
        llm,
        "hirag_extract_compact",
        {"title": chunk.title, "text": chunk.text},
        grammar(HIERARCHICAL),
        "build.hirag.extract.compact",
        config.extract_max_tokens,
    )
    items = parse_lines(text, HIERARCHICAL)
    entities = [
        {"name": e["name"][:80], "type": e["type"][:24], "description": e["description"][:200]}
        for e in items["E"][: config.max_entities]
    ]
    relations = [
        {
            "source": r["source"][:80],
            "target": r["target"][:80],
            "description": r["description"][:200],
            "strength": min(10, max(1, int(r["strength"]) if r["strength"].isdigit() else 1)),
        }
        for r in items["R"][: config.max_relations]
    ]
    return {"entities": entities, "relations": relations}


def extract_openie(chunk: Chunk, llm: LLM, config: Any) -> tuple[list[str], list[list[str]]]:
    """OpenIE's named entities and triples of one chunk (before cleaning), from compact lines."""
    text = _ask(
        llm,
        "openie_joint_compact",
        {"title": chunk.title, "text": chunk.text},
        grammar(OPENIE),
        "graph.openie.joint.compact",
        config.max_tokens,
    )
    items = parse_lines(text, OPENIE)
    phrase, predicate = config.max_phrase_chars, config.max_predicate_chars
    entities = [e["name"][:phrase] for e in items["E"][: config.max_entities]]
    triples = [
        [t["subject"][:phrase], t["predicate"][:predicate], t["object"][:phrase]]
        for t in items["T"][: config.max_triples]
    ]
    return entities, triples


def extract_typed(
    chunk: Chunk, llm: LLM, config: Any, vocabulary: Mapping[str, Sequence[str]]
) -> list[dict[str, str]]:
    """The typed family's triples of one chunk (before cleaning), from compact lines whose
    types and relations the grammar restricts to the schema's (``vocabulary``: node_types,
    relation_types); a line naming anything else is skipped."""
    nodes, relations = list(vocabulary["node_types"]), list(vocabulary["relation_types"])
    enums = {"subject_type": nodes, "object_type": nodes, "relation": relations}
    text = _ask(
        llm,
        "typed_extract_compact",
        {
            "title": chunk.title,
            "text": chunk.text,
            "node_types": ", ".join(nodes),
            "relation_types": ", ".join(relations),
        },
        grammar(TYPED, enums),
        "graph.typed.extract.compact",
        config.extract_max_tokens,
    )
    triples = [
        t
        for t in parse_lines(text, TYPED)["T"]
        if t["subject_type"] in nodes and t["object_type"] in nodes and t["relation"] in relations
    ]
    limit = config.max_name_chars
    return [
        t | {"subject": t["subject"][:limit], "object": t["object"][:limit]}
        for t in triples[: config.max_triples]
    ]
