"""Conventions every graph builder shares: entity names, node ids and bounded LLM output fields.

One normalisation for all families means that "The Varrowmere Lantern Works", "varrowmere
lantern works" and "“Varrowmere Lantern Works”" become one node in every graph, and that graphs
of different families name the same entity with the same id (``ent:<normalised name>``), so
their retrieval results can be compared node for node.

The bounded field types put ``maxLength`` / ``maxItems`` into the JSON schema sent to the server
(a llama.cpp grammar then cannot produce longer output, which bounds the cost of every call) but
validate leniently by truncating: a server that ignores the bounds yields a shortened value, not
a failed attempt that would be paid for again.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from typing import Annotated, Any, TypeVar

from pydantic import BeforeValidator, Field

from ace_lab.data import Chunk

T = TypeVar("T")

_SPACE = re.compile(r"\s+")
_CLOSERS = {")": "(", "]": "[", "}": "{", "»": "«", "›": "‹"}


def _is_edge_char(ch: str) -> bool:
    """Punctuation, quotes and spaces that may wrap a name but are not part of it.

    Symbols (``+``, ``$``, ``°``) are kept: they can be part of a name ("C++").
    """
    return unicodedata.category(ch)[0] in "PZ" or ch.isspace() or ch == "`"


def normalise_name(name: str) -> str:
    """The canonical form of an entity name, used for node ids and de-duplication.

    Unicode NFKC, lowercase, surrounding punctuation and quotes stripped (a closing bracket stays
    when its opener is inside, so "lantern works (company)" keeps its parentheses), whitespace
    collapsed, and a leading "the " dropped. Empty when nothing nameable is left.
    """
    text = _strip_edges(_SPACE.sub(" ", unicodedata.normalize("NFKC", str(name)).lower()))
    if text.startswith("the "):
        text = _strip_edges(text[4:])
    return text


def _strip_edges(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _is_edge_char(text[start]):
        start += 1
    while end > start and _is_edge_char(text[end - 1]):
        opener = _CLOSERS.get(text[end - 1])
        if opener is not None and opener in text[start : end - 1]:
            break
        end -= 1
    return text[start:end]


def entity_id(name: str) -> str:
    """Node id of an entity: ``ent:<normalised name>`` ("" when the name normalises to nothing)."""
    norm = normalise_name(name)
    return f"ent:{norm}" if norm else ""


def chunk_node(chunk: Chunk) -> dict[str, Any]:
    """The Chunk node every family includes, so entities keep a path to their source text."""
    return {
        "id": chunk.id,
        "label": "Chunk",
        "name": chunk.title,
        "description": chunk.text,
        "source_ids": [chunk.id],
    }


def mention_edges(entity_id: str, chunk_ids: Iterable[str]) -> list[dict[str, Any]]:
    """``MENTIONED_IN`` edges from an entity to every chunk it was extracted from."""
    return [
        {
            "id": "men:" + short_hash(entity_id, cid),
            "source": entity_id,
            "target": cid,
            "type": "MENTIONED_IN",
            "source_ids": [cid],
        }
        for cid in sorted(chunk_ids)
    ]


def short_hash(*parts: str) -> str:
    """A stable 16-hex digest of ``parts``: edge ids that stay short for long predicates."""
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


def fold(text: str) -> str:
    """Text for case-insensitive containment checks: NFKC, casefolded, whitespace collapsed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", str(text)).casefold()).strip()


def _truncate(limit: int) -> BeforeValidator:
    def cut(value: Any) -> Any:
        return value[:limit] if isinstance(value, str | list) else value

    return BeforeValidator(cut)


def bounded_str(max_length: int) -> Any:
    """A ``str`` field whose schema says ``maxLength`` and whose validation truncates."""
    return Annotated[str, _truncate(max_length), Field(json_schema_extra={"maxLength": max_length})]


def bounded_list(item: Any, max_items: int) -> Any:
    """A ``list[item]`` field whose schema says ``maxItems`` and whose validation truncates."""
    return Annotated[
        list[item], _truncate(max_items), Field(json_schema_extra={"maxItems": max_items})
    ]
