"""Answer metrics for multi-hop QA: EM/F1, coverage and recovery, two recalls, answer format.

EM and F1 follow the SQuAD / HotpotQA official scripts (and HippoRAG, which reuses them), so
numbers are comparable with published tables: answers are normalised the SQuAD way and scored
against the best-matching gold alias. Coverage and recovery follow the ACE-GraphRAG Table 5
definitions. Retrieval is measured against the data set's supporting passages twice, named for
what they count: :func:`passage_recall` over the passages rendered in the final context (the
main one) and :func:`provenance_recall` over the source ids of every evidence item (an entity
or a summary extracted from a passage credits it although its text never reached the model).
:func:`answer_format` says how a raw reply gave its answer (the format-compliance rate).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
#: Every ASCII punctuation character (one regex pass: coverage and fact metrics normalise
#: whole contexts, where a per-character loop is ~30x slower).
_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")
#: Answers that only match exactly (HotpotQA: a "yes" must not earn partial credit for "no").
_SPECIAL = frozenset({"yes", "no", "noanswer"})


def normalize_answer(s: str) -> str:
    """SQuAD normalisation: lower case, no punctuation, no articles, single spaces."""
    text = _PUNCTUATION.sub("", str(s).lower())
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 if the normalised prediction equals any normalised gold alias, else 0.0."""
    pred = normalize_answer(prediction)
    return max((float(pred == normalize_answer(g)) for g in golds), default=0.0)


def _f1(pred: str, gold: str) -> float:
    """Token F1 of two normalised answers, with HotpotQA's exact-only special answers."""
    if (pred in _SPECIAL or gold in _SPECIAL) and pred != gold:
        return 0.0
    common = Counter(pred.split()) & Counter(gold.split())
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred.split()), same / len(gold.split())
    return 2 * precision * recall / (precision + recall)


def f1_score(prediction: str, golds: Sequence[str]) -> float:
    """SQuAD token F1 against the best gold alias (0.0 when there are no golds)."""
    pred = normalize_answer(prediction)
    return max((_f1(pred, normalize_answer(g)) for g in golds), default=0.0)


def is_yes_no(golds: Sequence[str]) -> bool:
    """Whether the question is a yes/no comparison (coverage is undefined for those)."""
    return any(normalize_answer(g) in ("yes", "no") for g in golds)


def answer_in_context(context_text: str, golds: Sequence[str]) -> bool:
    """Whether any gold alias occurs in the context as whole normalised words.

    Padding with spaces makes "1942" not match inside "19423" and "art" not inside "party".
    """
    context = f" {normalize_answer(context_text)} "
    return any(
        (gold := normalize_answer(g)) and f" {gold} " in context  # empty gold matches nothing
        for g in golds
    )


def coverage_and_recovery(
    initial: Sequence[bool | None], final: Sequence[bool | None]
) -> dict[str, float | int | None]:
    """ACE-GraphRAG Table 5: answer coverage before/after refinement and recovery.

    ``initial[i]`` / ``final[i]`` say whether question i's gold appears in its first / last
    context; ``None`` marks a yes/no question (no answer span to find), which is excluded.
    Coverage is the covered share of the remaining ``n`` questions; recovery is the share of
    the ``n_uncovered`` initially uncovered ones that the final context covers. Ratios over an
    empty set are ``None``.
    """
    if len(initial) != len(final):
        raise ValueError(f"initial has {len(initial)} entries, final {len(final)}")
    pairs = [(i, f) for i, f in zip(initial, final, strict=True) if i is not None]
    if any(f is None for _, f in pairs) or len(pairs) != sum(f is not None for f in final):
        raise ValueError("initial and final must mark the same questions as yes/no (None)")
    n = len(pairs)
    uncovered = [f for i, f in pairs if not i]
    return {
        "n": n,
        "coverage_initial": sum(bool(i) for i, _ in pairs) / n if n else None,
        "coverage_final": sum(bool(f) for _, f in pairs) / n if n else None,
        "n_uncovered": len(uncovered),
        "recovery": sum(bool(f) for f in uncovered) / len(uncovered) if uncovered else None,
    }


def support_recall(
    context_source_ids: Iterable[str], supporting_ids: Sequence[str]
) -> float | None:
    """Share of ``supporting_ids`` found among ``context_source_ids`` (None without any).

    Ids may be chunk ids (``<doc_id>#<index>``) rather than whole passages; any chunk of a
    supporting passage counts as finding it. :func:`passage_recall` and
    :func:`provenance_recall` are this share over two different id sets.
    """
    wanted = list(dict.fromkeys(supporting_ids))
    if not wanted:
        return None
    present = set(context_source_ids)
    documents = {sid.rsplit("#", 1)[0] for sid in present if "#" in sid}
    hits = sum(s in present or s in documents for s in wanted)
    return hits / len(wanted)


def passage_recall(passage_ids: Iterable[str], supporting_ids: Sequence[str]) -> float | None:
    """Share of supporting passages among the passages rendered in the final context.

    ``passage_ids`` are the ids of the context's ``passage`` evidence, which are chunk ids
    (:meth:`ace_lab.retrieval.RetrievalGraph.passage_evidence`): the passage id itself, or
    ``<passage id>#<index>`` for a passage cut into several chunks; any chunk counts. Other
    evidence ids carry a kind prefix (``ent:``, ``rel:``, ``sum:``, ``com:``, ``path:``), so
    the ids of a whole context may be passed: only passage ids can match. None without
    supporting ids.
    """
    return support_recall(passage_ids, supporting_ids)


def provenance_recall(source_ids: Iterable[str], supporting_ids: Sequence[str]) -> float | None:
    """Share of supporting passages among the source ids of every context item (entities,
    relations, summaries and reports credit the passages they were extracted from, whether or
    not those passages' text reached the context). The ``support_recall`` of older records."""
    return support_recall(source_ids, supporting_ids)


# ---------------------------------------------------------------------------- answer format
_TAG_OPEN = re.compile(r"\[\s*final[ _]answer\s*\]", re.IGNORECASE)
_TAG_CLOSE = re.compile(r"\[\s*/\s*final[ _]answer\s*\]", re.IGNORECASE)
_ANSWER_PREFIX = re.compile(r"(?:final\s+answer|answer|result)[\s*_`]*[:：]", re.IGNORECASE)
#: Markdown and quoting around an answer or a prefix (as the extractor strips them).
_DECORATION = " \t\r\n*_`\"'“”‘’#>-"
#: The four ways a reply can give its answer, most to least compliant.
ANSWER_FORMATS = ("tag", "prefix", "line", "empty")


def answer_format(raw: str | None) -> str:
    """How a raw QA reply gave its answer, read from the reply text alone.

    ``"tag"``: a proper ``[FINAL_ANSWER] … [/FINAL_ANSWER]`` pair (case-insensitive, ``_`` or a
    space) with a non-empty answer between the tags, the format the answer prompt asks for.
    ``"prefix"``: otherwise, an answer marked some other way, on a line starting ``Answer:``,
    ``Result:`` or ``Final answer:`` (or the line after a bare one) or after an opening tag
    whose closing tag is missing. ``"line"``: otherwise, any other non-empty text (the answer
    can only be guessed from a line). ``"empty"``: nothing but whitespace and tags. The
    format-compliance rate of a method is its share of ``"tag"``.
    """
    text = str(raw or "")
    segments = _TAG_OPEN.split(text)
    for segment in segments[1:]:
        parts = _TAG_CLOSE.split(segment, maxsplit=1)
        if len(parts) == 2 and parts[0].strip(_DECORATION):
            return "tag"
    if any(_TAG_CLOSE.split(s, maxsplit=1)[0].strip(_DECORATION) for s in segments[1:]):
        return "prefix"  # an opening tag, then an answer that its closing tag never ends
    lines = [
        ln.strip(_DECORATION) for ln in _TAG_CLOSE.sub(" ", _TAG_OPEN.sub(" ", text)).splitlines()
    ]
    lines = [ln for ln in lines if ln]
    for i, line in enumerate(lines):
        if (prefix := _ANSWER_PREFIX.match(line)) is not None and (
            line[prefix.end() :].strip(_DECORATION) or i + 1 < len(lines)
        ):
            return "prefix"
    return "line" if lines else "empty"
