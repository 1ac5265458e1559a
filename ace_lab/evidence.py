"""The types every method speaks: Evidence, Context, Answer, and the evidence operations every
method shares — the ``Retriever`` protocol of context builders, ``tag`` (label items with the
branch and round that found them), ``merge`` (consolidate with provenance) and ``fit_budget``.

The ``Trace`` a method records lives in :mod:`ace_lab.trace` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from ace_lab.steps import AnswerDetails
from ace_lab.tokens import count_tokens
from ace_lab.trace import (
    LLMCall,
    Step,
    Trace,
    cold_seconds,
    current_step,
    current_trace,
    record_llm_call,
)

__all__ = [
    "BLOCK_ORDER",
    "EVIDENCE_KINDS",
    "Answer",
    "Context",
    "Evidence",
    "LLMCall",
    "Retriever",
    "Step",
    "Trace",
    "cold_seconds",
    "current_step",
    "current_trace",
    "fit_budget",
    "merge",
    "provenance_of",
    "record_llm_call",
    "tag",
]

EvidenceKind = Literal[
    "entity", "relation", "passage", "community", "report", "summary", "path", "row"
]
EVIDENCE_KINDS: tuple[str, ...] = EvidenceKind.__args__  # type: ignore[attr-defined]

#: The one context budget of every QA method, in tokens as ``Context.fit`` counts them (item
#: texts and block headers; the rendered text adds a bullet per item, ≤ 2 % more): each method
#: fills it its own way (NaiveRAG takes passages best first until it is full), so methods differ
#: in what they put in the context, not in its size. 1500 caps HiRAG's ``hi`` context, which
#: measured ≈1,260 rendered tokens on average on the committed HotpotQA and 2Wiki slices.
CONTEXT_BUDGET_TOKENS = 1500


@dataclass(frozen=True)
class Evidence:
    """One retrievable unit with its provenance.

    ``level`` 0 is the finest (passages, base entities); higher levels are more abstract
    (summary entities, community reports). ``source_ids`` are the chunk ids it came from.
    """

    id: str
    kind: str
    text: str
    level: int = 0
    source_ids: tuple[str, ...] = ()
    branch: str = "base"
    round: int = 0
    score: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.kind not in EVIDENCE_KINDS:
            raise ValueError(f"Evidence.kind must be one of {EVIDENCE_KINDS}, got {self.kind!r}")

    @property
    def tokens(self) -> int:
        return count_tokens(self.text)


def _header(item: Evidence) -> str:
    """``### round R · branch (goal G, mode M) · kind``: the block an item belongs to."""
    extra = ", ".join(f"{key} {item.meta[key]}" for key in ("goal", "mode") if item.meta.get(key))
    branch = f"{item.branch} ({extra})" if extra else item.branch
    return f"### round {item.round} · {branch} · {item.kind}"


@dataclass
class Context:
    """Ordered evidence; ``render`` linearises it under (round / branch / kind) headers."""

    evidence: list[Evidence] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.evidence)

    def __iter__(self) -> Iterator[Evidence]:
        return iter(self.evidence)

    @property
    def tokens(self) -> int:
        return count_tokens(self.render())

    def fit(self, budget_tokens: int | None) -> tuple[list[Evidence], list[Evidence]]:
        """Split into (kept, dropped): items are kept in order while they fit the budget.

        Headers count against the budget. An item that does not fit is dropped, and later,
        smaller items may still be kept, so the budget is used fully without reordering.
        """
        if budget_tokens is None:
            return list(self.evidence), []
        kept: list[Evidence] = []
        dropped: list[Evidence] = []
        used = 0
        last_header: str | None = None
        for item in self.evidence:
            header = _header(item)
            cost = item.tokens + (count_tokens(header) if header != last_header else 0)
            if used + cost <= budget_tokens:
                kept.append(item)
                used += cost
                last_header = header
            else:
                dropped.append(item)
        return kept, dropped

    def render(self, budget_tokens: int | None = None) -> str:
        kept, _ = self.fit(budget_tokens)
        lines: list[str] = []
        last_header: str | None = None
        for item in kept:
            header = _header(item)
            if header != last_header:
                if lines:
                    lines.append("")
                lines.append(header)
                last_header = header
            lines.append(f"- {item.text}")
        return "\n".join(lines)


@dataclass
class Answer:
    """What a method returns: the answer text, the context it was built from, and how."""

    text: str
    context: Context
    trace: Trace
    method: str = ""
    raw: str | None = None  # the model's reply the answer was parsed from
    retrieval_calls: int | None = None
    #: What the method reports about this answer, typed; it names the record columns it owns.
    details: AnswerDetails | None = None


class Retriever(Protocol):
    """A set of context builders: ``retrieve(query, mode)`` returns evidence without answering
    (nano-graphrag's ``only_need_context``). Baselines and ACE's backbones are retrievers."""

    modes: tuple[str, ...]

    def retrieve(self, query: str, mode: str) -> list[Evidence]: ...


def tag(items: list[Evidence], branch: str, round_: int, **meta: object) -> list[Evidence]:
    """``items`` re-labelled as coming from ``branch`` in ``round_``, with extra provenance."""
    return [
        replace(item, branch=branch, round=round_, meta={**item.meta, **meta}) for item in items
    ]


def fit_budget(items: list[Evidence], budget_tokens: int | None) -> list[Evidence]:
    """Items in order while they fit ``budget_tokens`` (see ``Context.fit``)."""
    kept, _ = Context(items).fit(budget_tokens)
    return kept


#: Merge order of branch blocks after C_base (paper: Depth before Breadth).
BLOCK_ORDER = ("base", "depth", "breadth")


def provenance_of(item: Evidence) -> str:
    return f"r{item.round}:{item.branch}"


def merge(base: list[Evidence], increments: dict[str, list[Evidence]]) -> list[Evidence]:
    """Consolidation C* = Merge(C_base, ΔC): structured blocks that keep every provenance.

    Blocks come in round order (C_base first), then branch order (Depth, Breadth). An item
    found again in a later round or branch stays where it first appeared, with every place it
    was found listed in ``meta["provenance"]`` (e.g. ``["r0:base", "r1:depth"]``); its kind,
    level and source ids are unchanged.
    """
    blocks = [base] + [increments[b] for b in BLOCK_ORDER if b in increments]
    blocks += [items for b, items in increments.items() if b not in BLOCK_ORDER]
    merged: dict[str, Evidence] = {}
    for block in blocks:
        for item in block:
            earlier = merged.get(item.id)
            if earlier is None:
                merged[item.id] = replace(
                    item, meta={**item.meta, "provenance": [provenance_of(item)]}
                )
                continue
            seen = list(earlier.meta["provenance"])
            if provenance_of(item) not in seen:
                seen.append(provenance_of(item))
            merged[item.id] = replace(
                earlier,
                score=max(earlier.score, item.score),
                meta={**earlier.meta, "provenance": seen},
            )
    return list(merged.values())
