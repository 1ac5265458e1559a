"""Answer extraction under hostile replies: ``extract_final_answer`` on long, odd and adversarial
strings returns a ``str`` within 50 ms, and the known cases give their expected answer.

The corpus is fixed: known cases with their expected answers, hostile templates (whitespace
runs inside tags, thousands of tags or brackets, megabyte replies, control and bidi characters,
lone surrogates) at several sizes, and a seeded random mix of hostile fragments
(``random.Random(13)``), so every run times the same strings. A time is the best of three calls,
so a busy machine's scheduling noise is not read as backtracking: every pattern is linear, and
the slowest string takes a few milliseconds.
"""

from __future__ import annotations

import random
import time
from typing import Any

from ace_lab.methods.final_answer import MAX_REPLY_CHARS, extract_final_answer

ROW = "answer extraction under hostile replies"
LIMIT_S = 0.050
OPEN, CLOSE = "[FINAL_ANSWER]", "[/FINAL_ANSWER]"

#: (reply, expected answer): the unit cases, the issue's defects and more bent formats.
KNOWN: list[tuple[str, str]] = [
    (f"Reasoning...\n{OPEN} Mira Holt {CLOSE}", "Mira Holt"),
    ("[final_answer]Toronto.[/final_answer]", "Toronto"),
    (f"blah\n{OPEN} 1978\nbecause the record says so", "1978"),
    (f"**{OPEN}** `Lakeshore Library` **{CLOSE}**", "Lakeshore Library"),
    (f'{OPEN} "yes" {CLOSE}', "yes"),
    (f"{OPEN} Answer: Paris {CLOSE}", "Paris"),
    (f"I will use {OPEN} tags.\n{OPEN} Rome {CLOSE}", "Rome"),
    (f"{OPEN} {CLOSE}\nAnswer: Oslo", "Oslo"),
    ("Let me think.\n**Answer:** Paris.\nHope this helps!", "Paris"),
    ("Step 1...\nResult: 42", "42"),
    ("**Final answer**: the Beatles", "the Beatles"),
    ("The question asks for a city.\n\nParis.\n", "Paris"),
    ("Result: [FINLANDISH Driver] Mika Häkkinen [/FINLANDISH Driver]", "Mika Häkkinen"),
    ("Answer: [1998] was the year", "[1998] was the year"),
    ("Reasoning: x\nResult: [Mika Häkkinen] [/Mika Häkkinen]", "Mika Häkkinen"),
    ("Reasoning: y\nResult: [Kim Polese]", "Kim Polese"),
    (f"Result: IJA {CLOSE}", "IJA"),
    ("", ""),
    # the defects
    ("Answer:\nBrinemouth", "Brinemouth"),
    (f"{OPEN} Brinemouth {CLOSE}\nOn reflection: {OPEN} Oslo", "Brinemouth"),
    (OPEN + " " * 3000 + "Brinemouth" + " " * 3000 + CLOSE, "Brinemouth"),
    ("[ANSWER]" + " " * 3000 + "Brinemouth" + " " * 3000 + "[/ANSWER]", "Brinemouth"),
    # more bent formats
    ("Answer:\n\n**Brinemouth**", "Brinemouth"),
    ("Final answer:\n`1978`.", "1978"),
    ("Result：Brinemouth", "Brinemouth"),
    (f"{OPEN}\nAnswer:\nBrinemouth", "Brinemouth"),
    (f"{OPEN} A {CLOSE} and later {OPEN} B {CLOSE}", "B"),
    (f"{OPEN} A {CLOSE}\n{OPEN} {CLOSE}", "A"),
    ("[ final answer ] Brinemouth [ / final answer ]", "Brinemouth"),
    ("[FINAL ANSWER]\tBrinemouth\t[/FINAL ANSWER]", "Brinemouth"),
    (f"{OPEN} Zoë Brinemouth-Ōta {CLOSE}", "Zoë Brinemouth-Ōta"),
    (f"{OPEN} 東京 {CLOSE}", "東京"),
    (f"{OPEN} 🙂 {CLOSE}", "🙂"),
    ("Answer: Brinemouth\r\n", "Brinemouth"),
    (f"{OPEN}Brinemouth{CLOSE}{CLOSE}{CLOSE}", "Brinemouth"),
    (f"{CLOSE} {OPEN} Brinemouth {CLOSE}", "Brinemouth"),
    ("Answer: x\nAnswer: y\nAnswer: z", "z"),
    ("Answer: z\nAnswer:", "z"),
    ("Paris\nAnswer:", "Paris"),
    (f"{OPEN} [Brinemouth] {CLOSE}", "Brinemouth"),
    (f"{OPEN} The answer is 3.5. {CLOSE}", "The answer is 3.5"),
    ("   \n\n   ", ""),
    ("*** ``` ''' \"\"\"", ""),  # nothing but wrappers
]

#: Hostile templates: each maps a size n to a reply.
TEMPLATES: list[tuple[str, Any]] = [
    ("spaces inside tags", lambda n: OPEN + " " * n + "x" + " " * n + CLOSE),
    (
        "spaces inside a made-up pair",
        lambda n: f"{OPEN}[A]" + " " * n + "x" + " " * n + f"[/B]{CLOSE}",
    ),
    ("unclosed made-up pair", lambda n: f"{OPEN} [A]" + " " * n + "x" + " " * n + "[/B"),
    ("spaces in an opening tag", lambda n: "[" + " " * n + "final answer" + " " * n),
    ("spaces in a closing tag", lambda n: f"{OPEN} x [" + " " * n + "/" + " " * n + "final"),
    ("many opening tags", lambda n: OPEN * n),
    ("many closing tags", lambda n: CLOSE * n),
    ("many tag pairs", lambda n: f"{OPEN} x {CLOSE}" * n),
    ("many open brackets", lambda n: "[" * n),
    ("many close-tag starts", lambda n: "[/" * n + "]"),
    ("brackets and slashes", lambda n: "[/]" * n),
    ("nested brackets", lambda n: "[" * n + "x" + "]" * n),
    ("answer-as-tag near miss", lambda n: "[" + "a" * 199 + "]" + " " * n + "[/" + "a" * n),
    ("many Answer: lines", lambda n: "Answer:\n" * n),
    ("many prefixes on one line", lambda n: "Answer: " * n + "x"),
    ("final with spaces", lambda n: "final" + " " * n + "answer" + " " * n),
    ("long single line", lambda n: "x" * (n * 10)),
    ("many blank lines", lambda n: "\n" * n + "Brinemouth"),
    ("wrapper characters", lambda n: "*_`\"'" * n),
    ("trailing periods", lambda n: "Answer: x" + "." * n),
    ("NUL bytes", lambda n: "\x00" * n + OPEN + "\x00x\x00" + CLOSE),
    ("bidi overrides", lambda n: "\u202e" * n + f"{OPEN} x {CLOSE}"),
    ("combining marks", lambda n: OPEN + "a" + "\u0301" * n + CLOSE),
    ("lone surrogates", lambda n: "\ud800" * n + f"{OPEN} \udfff {CLOSE}"),
    ("zero-width spaces", lambda n: OPEN + "\u200b" * n + "x" + CLOSE),
    ("unicode line breaks", lambda n: "\u2028\u2029\x85\x0b\x0c" * n + "Answer: x"),
    ("megabyte reply", lambda n: ("lorem ipsum " * n) + f"{OPEN} x {CLOSE}"),
]
#: The answers hostile templates must give while the reply fits ``MAX_REPLY_CHARS`` (a longer
#: one is read from its end, which may cut its opening tag off).
TEMPLATE_ANSWERS = {
    "spaces inside tags": "x",
    "spaces inside a made-up pair": "x",
    "many tag pairs": "x",
    "many Answer: lines": "",
    "many blank lines": "Brinemouth",
    "bidi overrides": "x",
    "megabyte reply": "x",
}
SIZES_FULL = (1_000, 3_000, 10_000, 100_000)
SIZES_FAST = (3_000,)
FRAGMENTS = [
    OPEN, CLOSE, "[", "]", "[/", "Answer:", "Result:", "\n", " " * 500, "\t", "**", "`", "x", "é",
    "[A]", "[/A]", "final", "answer", ".", "\ud800", "\x00", "：",
]  # fmt: skip


def _mixed(count: int) -> list[str]:
    rng = random.Random(13)
    return ["".join(rng.choices(FRAGMENTS, k=rng.randint(1, 400))) for _ in range(count)]


def corpus(full: bool) -> list[tuple[str, str | None]]:
    """(reply, expected answer or None) for every string the property times."""
    known = KNOWN if full else KNOWN[:24]
    sizes = SIZES_FULL if full else SIZES_FAST
    hostile = []
    for name, make in TEMPLATES:
        for n in sizes:
            reply = make(n)
            fits = len(reply) <= MAX_REPLY_CHARS
            hostile.append((reply, TEMPLATE_ANSWERS.get(name) if fits else None))
    return list(known) + hostile + [(text, None) for text in _mixed(40 if full else 6)]


def best_of(text: str, runs: int = 3) -> tuple[Any, float]:
    """The answer and the best wall time of ``runs`` calls."""
    best, answer = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        answer = extract_final_answer(text)
        best = min(best, time.perf_counter() - start)
    return answer, best


def measure(full: bool) -> list[dict[str, Any]]:
    """One row: strings tried, held (str, within 50 ms, expected answer where known), failed."""
    cases = corpus(full)
    failures: list[str] = []
    slowest = 0.0
    for text, expected in cases:
        try:
            answer, seconds = best_of(text)
        except Exception as exc:  # the property: nothing escapes
            failures.append(f"{text[:30]!r}: {type(exc).__name__}")
            continue
        slowest = max(slowest, seconds)
        if not isinstance(answer, str):
            failures.append(f"{text[:30]!r}: returned {type(answer).__name__}")
        elif seconds > LIMIT_S:
            failures.append(f"{text[:30]!r}: {seconds * 1000:.0f} ms")
        elif expected is not None and answer != expected:
            failures.append(f"{text[:30]!r}: {answer[:30]!r} != {expected!r}")
    known = sum(expected is not None for _, expected in cases)
    note = (
        f"{known} known cases, {len(cases) - known} hostile; slowest {slowest * 1000:.1f} ms "
        f"(limit {LIMIT_S * 1000:.0f} ms, best of 3)"
    )
    if failures:
        note += "; failures: " + "; ".join(failures[:4])
    return [
        {
            "property": ROW,
            "attempts": len(cases),
            "held": len(cases) - len(failures),
            "failed": len(failures),
            "note": note,
        }
    ]
