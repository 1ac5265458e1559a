"""Stage 3 of the typed build: a reflection call judges each chunk's triples (keep/drop/repair).

Which chunks are reflected depends on the mode (see :mod:`ace_lab.graph.typed`): ``suspicious``
sends only chunks with a triple whose ends are not both quoted from the text. The verdicts are
applied by :func:`apply_verdicts`; an unreadable reflection commits the extraction unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ace_lab.data import Chunk
from ace_lab.graph.extract import ChunkRecord
from ace_lab.graph.names import fold
from ace_lab.graph.typed.config import TRIPLE_KEYS, Reflection, TypedConfig
from ace_lab.graph.typed.extract import clean_triple, prompt_passage, prompt_vocabulary
from ace_lab.graph.typed.models import reflection_model
from ace_lab.graph.typed.schema import InducedSchema
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt


def is_grounded(triple: dict[str, str], chunk: Chunk) -> bool:
    """Both ends occur (case-insensitively) in the chunk's title or text."""
    haystack = fold(f"{chunk.title}\n{chunk.text}")
    return all(fold(triple[k]) in haystack for k in ("subject", "object"))


def needs_reflection(triples: Sequence[dict[str, str]], chunk: Chunk, mode: Reflection) -> bool:
    """Whether ``mode`` sends this chunk's triples to the reflection call (see the module doc)."""
    if mode == "off" or not triples:
        return False
    return mode == "all" or not all(is_grounded(t, chunk) for t in triples)


def _numbered(triples: Sequence[dict[str, str]]) -> str:
    return "\n".join(
        f"{i}. {t['subject']} ({t['subject_type']}) {t['relation']} {t['object']} "
        f"({t['object_type']})"
        for i, t in enumerate(triples, 1)
    )


def apply_verdicts(
    triples: Sequence[dict[str, str]],
    verdicts: Sequence[str],
    repairs: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, str]], Counter[str]]:
    """Triples after reflection, and how many were kept, dropped and repaired.

    A missing verdict keeps its triple (no judgement is no evidence against it); a repair
    verdict without a usable corrected triple drops it, since the reflection judged the triple
    wrong as stated.
    """
    fixes = {int(r["n"]): r for r in repairs}
    out: list[dict[str, str]] = []
    counts: Counter[str] = Counter(kept=0, dropped=0, repaired=0)
    for i, triple in enumerate(triples, 1):
        verdict = verdicts[i - 1] if i - 1 < len(verdicts) else "keep"
        if verdict == "keep":
            out.append(dict(triple))
            counts["kept"] += 1
        elif verdict == "repair" and (fixed := _fix(fixes.get(i))):
            out.append(fixed)
            counts["repaired"] += 1
        else:
            counts["dropped"] += 1
    return out, counts


def _fix(repair: dict[str, Any] | None) -> dict[str, str] | None:
    return clean_triple({k: repair[k] for k in TRIPLE_KEYS}) if repair else None


def reflector(
    llm: LLM, schema: InducedSchema, config: TypedConfig, extracted: dict[str, ChunkRecord]
):
    vocabulary = prompt_vocabulary(schema)

    def reflect(chunk: Chunk) -> dict[str, Any]:
        triples = extracted[chunk.id].result["triples"]
        base = {"schema": schema.fingerprint, "reflection": config.reflection}
        if not needs_reflection(triples, chunk, config.reflection):
            counts = {"kept": len(triples), "dropped": 0, "repaired": 0}
            return base | {"triples": triples, "reflected": False, "fallback": False, **counts}
        model = reflection_model(schema, config, len(triples))
        messages = load_prompt("typed_reflect").messages(
            **vocabulary, **prompt_passage(chunk), triples=_numbered(triples)
        )
        result = llm.json(
            messages,
            model,
            tag="graph.typed.reflect",
            # documented fallback: an unreadable reflection commits the extraction unchanged
            default=lambda: model(verdicts=["keep"] * len(triples), repairs=[]),
            attempts=config.attempts,
            max_tokens=config.reflect_max_tokens,
        )
        value = result.value
        kept, counts = apply_verdicts(
            triples, list(value.verdicts), [r.model_dump() for r in value.repairs]
        )
        return base | {
            "triples": kept,
            "reflected": True,
            "fallback": result.fallback,
            **dict(counts),
        }

    return reflect
