"""Generated model outputs for the malformed-output property: a valid answer for a schema, then
mutations that break it the ways a model does (hypothesis draws; see malformed_outputs.py).

Every output carries a label the checks hold the parser to:

``valid``
    A valid answer, possibly fenced, wrapped in prose or whitespace, with extra fields, huge
    strings (within ``MAX_JSON_CHARS``) and any unicode but lone surrogates: it must be accepted.
``reject``
    It holds an escaped lone surrogate (``"\\ud800"``) or nesting deeper than
    ``MAX_JSON_DEPTH``: it must never be accepted, since what it carries would crash a later
    write or hash. (A *raw* lone surrogate is replaced by U+FFFD at the endpoint, before any
    parser sees it, so such an output is labelled ``any``.)
``any``
    Truncated, wrong types, missing fields, several objects, NaN, garbage: accepted or not,
    the run must not crash and the result must be valid or the documented default.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from ace_lab.llm.structured import MAX_JSON_CHARS, MAX_JSON_DEPTH

Draw = Callable[[st.SearchStrategy[Any]], Any]

WORDS = ["Brinemouth", "Mira Holt", "tidal lantern", "1978", "", " ", "Zoë", "東京", "🙂 ok"]
HUGE_UNITS = ["x", "é", "漢", "🙂", " ", "\\", '"', "{", "}", "[", "```", "\n", "\x00"]
PROSE = st.text(st.characters(exclude_characters="{}`", exclude_categories=("Cs",)), max_size=40)
NODE_TYPES = ("Person", "Place", "Work")
RELATION_TYPES = ("BORN_IN", "LOCATED_IN", "WROTE")
_NEAR = {"Person": "person", "Place": "PLACE", "BORN_IN": "born in", "LOCATED_IN": "locatedIn"}


def free(draw: Draw, size: int = 30) -> str:
    """A free-text field: a plain word, any unicode (no surrogates) or, rarely, a huge string."""
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return draw(st.sampled_from(HUGE_UNITS)) * draw(st.integers(1_000, 12_000))
    if kind <= 4:
        return draw(st.text(max_size=size))
    return draw(st.sampled_from(WORDS))


def _few(draw: Draw, make: Callable[[], Any], most: int = 3) -> list[Any]:
    return [make() for _ in range(draw(st.integers(0, most)))]


def _typed_triple(draw: Draw) -> dict[str, Any]:
    def kind(values: tuple[str, ...]) -> str:
        value = draw(st.sampled_from(values))
        return _NEAR.get(value, value) if draw(st.booleans()) else value

    return {
        "subject": free(draw),
        "subject_type": kind(NODE_TYPES),
        "relation": kind(RELATION_TYPES),
        "object": free(draw),
        "object_type": kind(NODE_TYPES),
    }


def _plan(draw: Draw) -> dict[str, Any]:
    def query() -> dict[str, Any]:
        out = {"query": free(draw)}
        for key in ("mode", "goal"):  # optional fields
            if draw(st.booleans()):
                out[key] = draw(st.sampled_from(["hi_local", "hi_global", "empowerment", "x"]))
        return out

    return {"analysis": free(draw), "queries": _few(draw, query)}


def _judge(draw: Draw) -> dict[str, Any]:
    winners = ["Answer 1", "Answer 2", "Tie", "answer 1", "ANSWER_2", "draw"]
    return {
        c: {"winner": draw(st.sampled_from(winners)), "explanation": free(draw)}
        for c in ("comprehensiveness", "diversity", "empowerment", "overall")
    }


def _reflection(draw: Draw, n: int) -> dict[str, Any]:
    verdicts = [draw(st.sampled_from(["keep", "drop", "repair"])) for _ in range(n)]
    repairs = _few(draw, lambda: {"n": draw(st.integers(1, n))} | _typed_triple(draw), n)
    return {"verdicts": verdicts, "repairs": repairs}


def base_output(draw: Draw, schema_name: str, reflected: int = 2) -> dict[str, Any]:
    """A valid answer for the output model ``schema_name`` (``reflected``: triples judged)."""
    entity = lambda: [free(draw), free(draw, 10), free(draw)]  # noqa: E731
    relation = lambda: [free(draw), free(draw), free(draw), draw(st.integers(-5, 20))]  # noqa: E731
    triple = lambda: [free(draw), free(draw), free(draw)]  # noqa: E731
    makers: dict[str, Callable[[], dict[str, Any]]] = {
        "RouterOutput": lambda: {
            "topology": draw(st.sampled_from(["POINT", "CONTRAST", "CHAIN", "OVERVIEW"]))
        },
        "PlanOutput": lambda: _plan(draw),
        "EntityRelationExtraction": lambda: {
            "entities": _few(draw, entity),
            "relations": _few(draw, relation),
        },
        "CommunityReport": lambda: {
            "title": free(draw),
            "summary": free(draw),
            "rating": draw(st.integers(-10, 10**6)),
        },
        "NamedEntities": lambda: {"named_entities": _few(draw, lambda: free(draw))},
        "OpenTriples": lambda: {"triples": _few(draw, triple)},
        "EntitiesAndTriples": lambda: {
            "named_entities": _few(draw, lambda: free(draw)),
            "triples": _few(draw, triple),
        },
        "SchemaProposal": lambda: {
            "node_types": _few(draw, lambda: free(draw), 6),
            "relation_types": _few(draw, lambda: free(draw), 6),
        },
        "TypedExtraction": lambda: {"triples": _few(draw, lambda: _typed_triple(draw))},
        "Reflection": lambda: _reflection(draw, reflected),
        "JudgeVerdict": lambda: _judge(draw),
    }
    return makers[schema_name]()


# ------------------------------------------------------------------------------ mutations
def _containers(node: Any) -> list[Any]:
    """Every dict and list in ``node`` (iteratively: generated values are shallow)."""
    found, stack = [], [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | list):
            found.append(item)
            stack.extend(item.values() if isinstance(item, dict) else item)
    return found


def _slot(draw: Draw, obj: Any) -> tuple[Any, Any] | None:
    """A random (container, key/index) in ``obj``; None if it holds no value."""
    slots = [
        (c, k) for c in _containers(obj) for k in (c if isinstance(c, dict) else range(len(c)))
    ]
    return draw(st.sampled_from(slots)) if slots else None


def _lone_surrogate(draw: Draw) -> str:
    return chr(draw(st.integers(0xD800, 0xDFFF)))


#: Stands for a deeply nested value until the text is written (json.dumps would recurse).
DEEP = "__deeply_nested__"


def _nested(draw: Draw) -> str:
    """The text of a value nested deeper than ``MAX_JSON_DEPTH`` (up to 3,000 levels)."""
    n = draw(st.integers(MAX_JSON_DEPTH + 1, 3_000))
    if draw(st.booleans()):
        return "[" * n + "1" + "]" * n
    return '{"k": ' * n + "1" + "}" * n


def _strings(node: Any) -> list[str]:
    return [
        x
        for c in _containers(node)
        for x in (list(c) + list(c.values()) if isinstance(c, dict) else c)
        if isinstance(x, str)
    ] + ([node] if isinstance(node, str) else [])


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


OBJECT_MUTATIONS = ("extra", "missing", "wrong_type", "surrogate", "deep", "huge")
TEXT_MUTATIONS = (
    "fence", "prose", "space", "truncate", "several", "raw_surrogate", "deep_text", "nan",
    "garbage",
)  # fmt: skip
BENIGN = {"extra", "fence", "prose", "space"}
WRONG = st.one_of(
    st.integers(),
    st.floats(allow_nan=False),
    st.none(),
    st.booleans(),
    st.just(""),
    st.builds(lambda: [1, "a"]),
    st.builds(lambda: {"x": 1}),  # fresh: mutations edit in place
)


def mutate_object(draw: Draw, obj: Any, kind: str) -> bool:
    """Apply mutation ``kind`` to ``obj`` in place; False when ``obj`` gave it no place."""
    slot = _slot(draw, obj)
    if kind == "extra":
        dicts = [c for c in _containers(obj) if isinstance(c, dict)]
        if dicts:
            draw(st.sampled_from(dicts))[draw(st.sampled_from(["note", "zz", "id"]))] = free(draw)
        return bool(dicts)
    if slot is None:
        return False
    container, key = slot
    if kind == "missing":
        if isinstance(container, dict):
            del container[key]
        else:
            container.pop(key)
    elif kind == "wrong_type":
        container[key] = draw(WRONG)
    elif kind == "surrogate":
        container[key] = free(draw, 5) + _lone_surrogate(draw) + free(draw, 5)
    elif kind == "deep":
        container[key] = DEEP
    elif kind == "huge":
        if not isinstance(container[key], str):
            return False
        container[key] = draw(st.sampled_from(HUGE_UNITS)) * draw(st.integers(10_000, 60_000))
    return True


def mutate_text(draw: Draw, text: str, kind: str) -> str:
    """``text`` after text mutation ``kind``."""
    if kind == "fence":
        return f"```{draw(st.sampled_from(['json', '', 'JSON']))}\n{text}\n```"
    if kind == "prose":
        return f"{draw(PROSE)}\n{text}\n{draw(PROSE)}"
    if kind == "space":
        return draw(st.sampled_from([" ", "\n\n", "\t", "\r\n"])) + text + "\n"
    if kind == "truncate":
        return text[: draw(st.integers(0, max(0, len(text) - 1)))]
    if kind == "several":
        return text + draw(st.sampled_from(["\n", " ", ""])) + text
    if kind == "raw_surrogate":
        at = draw(st.integers(0, len(text)))
        return text[:at] + _lone_surrogate(draw) + text[at:]
    if kind == "deep_text":
        n = draw(st.integers(MAX_JSON_DEPTH + 1, 5_000))
        return "[" * n + text + "]" * draw(st.sampled_from([0, n]))
    if kind == "nan":
        return text.replace(": ", ': NaN, "y": ', 1) if ": " in text else "NaN"
    return draw(st.sampled_from(["", "null", "[]", "{}", "{", "}", '"x"', "0", "ok"]))


def generate(draw: Draw, schema_name: str, reflected: int = 2) -> tuple[str, str]:
    """One model output for ``schema_name`` and its label (see the module docstring)."""
    obj = base_output(draw, schema_name, reflected)
    kinds = draw(st.lists(st.sampled_from(OBJECT_MUTATIONS), max_size=2))
    applied = {k for k in kinds if mutate_object(draw, obj, k)}
    strings = _strings(obj)
    hostile = DEEP in strings or any(_has_surrogate(x) for x in strings)
    text = json.dumps(
        obj, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 2]))
    )
    if DEEP in strings:
        text = text.replace(f'"{DEEP}"', _nested(draw))
    texts = draw(st.lists(st.sampled_from(TEXT_MUTATIONS), max_size=2, unique=True))
    if "fence" in texts and "several" in texts:
        texts.remove("several")
    for kind in texts:
        text = mutate_text(draw, text, kind)
    if _has_surrogate(text):
        # A raw lone surrogate never reaches a parser: the endpoint layer turns it into U+FFFD
        # (ace_lab.llm.endpoint.completion_parts), so the output may be accepted or refused.
        return text, "any"
    if not set(texts) <= BENIGN:
        return text, "any"
    if hostile:
        return text, "reject"
    if {"missing", "wrong_type", "huge"} & applied or len(text) > MAX_JSON_CHARS:
        return text, "any"
    return text, "valid"
