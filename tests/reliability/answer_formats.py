"""Answer extraction on every reply format the reliability probe saw the model write (issue 40,
item 5): angle-bracket tags, ``FINAL_ANSWER:`` and ``Answer -`` prefixes, fenced blocks and
trailing invisible characters each give the answer, scored EM 1 against the gold."""

from __future__ import annotations

from typing import Any

from ace_lab.eval.metrics import exact_match
from ace_lab.methods.final_answer import extract_final_answer

ROW = "answer extraction: every format of the probe"
GOLD = "Paris"

#: The replies of the probe (tests/methods/test_final_answer.py's regression cases) and more
#: spellings of each format; every one must give ``GOLD``.
FORMATS: tuple[str, ...] = (
    "[FINAL_ANSWER] Paris [/FINAL_ANSWER]\u200b",
    "[FINAL_ANSWER] Paris\u200b [/FINAL_ANSWER]",
    "[FINAL_ANSWER] Paris\u2060 [/FINAL_ANSWER]\u200d",
    "Paris\ufeff",
    "Paris\u200b\u200c",
    "<FINAL_ANSWER>Paris</FINAL_ANSWER>",
    "<final_answer> Paris </final_answer>",
    "Reasoning: it is the capital.\n<FINAL_ANSWER> Paris </FINAL_ANSWER>",
    "FINAL_ANSWER: Paris",
    "final_answer: Paris",
    "Reasoning: capital of France.\nFINAL_ANSWER: Paris",
    "Answer - Paris",
    "Answer – Paris",
    "Answer — Paris",
    "```\nParis\n```",
    "```text\n[FINAL_ANSWER] Paris [/FINAL_ANSWER]\n```",
    '```json\n{"answer": "Paris"}\n```',
    '```json\n{"reasoning": "capital", "answer": "Paris"}\n```',
)


def measure(full: bool) -> list[dict[str, Any]]:
    """One row: each format gives the gold answer with EM 1 (the same cases at both scales)."""
    failures: list[str] = []
    for text in FORMATS:
        try:
            answer = extract_final_answer(text)
        except Exception as exc:  # the property: nothing escapes
            failures.append(f"{text[:30]!r}: {type(exc).__name__}")
            continue
        if answer != GOLD or exact_match(answer, [GOLD]) != 1.0:
            failures.append(f"{text[:30]!r}: {answer[:30]!r}")
    note = f"{len(FORMATS)} replies in the probe's formats, each EM 1 against {GOLD!r}"
    if failures:
        note += "; misses: " + "; ".join(failures[:4])
    return [
        {
            "property": ROW,
            "attempts": len(FORMATS),
            "held": len(FORMATS) - len(failures),
            "failed": len(failures),
            "note": note,
        }
    ]
