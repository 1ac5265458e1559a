"""ROUGE-L as GraphRAG-Bench scores it, without the ``rouge-score`` package.

The benchmark's ``Evaluation/metrics/rouge.py`` (GraphRAG-Bench/GraphRAG-Benchmark; imported by
``Evaluation/generation_eval.py`` at d213976 as ``compute_rouge_score``; the file itself was
read in copies other repositories carry, the official one was not in the searched index) returns
``RougeScorer(["rougeL"], use_stemmer=True).score(ground_truth, answer).rougeL.fmeasure``, and
0.0 when either text is blank. It is used for Fact Retrieval and Complex Reasoning only.

``rouge-score`` is not a dependency here, so this module reproduces its pieces:

* tokens (``rouge_score/tokenize.py``): lower-case, every run of characters outside
  ``[a-z0-9]`` becomes a space, split on whitespace, Porter-stem tokens longer than three
  characters, drop empty tokens;
* ROUGE-L (``rouge_score/rouge_scorer.py``): the longest common subsequence of the two token
  lists; precision = LCS / prediction length, recall = LCS / target length,
  F = 2PR / (P + R) (0 when either is 0).

Deviation: ``rouge-score`` stems with NLTK's ``PorterStemmer()`` in its default
``NLTK_EXTENSIONS`` mode; :func:`porter_stem` is the original Porter (1980) algorithm (NLTK's
``ORIGINAL_ALGORITHM``). The two differ only on a few forms (e.g. NLTK maps "dying" to "die"
and "ties" to "tie", the original to "dy" and "ti"), so scores can differ in rare cases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


# --------------------------------------------------------------------------------------------
# Porter (1980)
# --------------------------------------------------------------------------------------------


def _consonant(word: str, i: int) -> bool:
    c = word[i]
    if c in "aeiou":
        return False
    if c == "y":  # y is a consonant at the start or after a vowel
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """m in [C](VC)^m[V]: the number of vowel-consonant sequences."""
    forms = "".join("c" if _consonant(stem, i) else "v" for i in range(len(stem)))
    return re.sub(r"(.)\1+", r"\1", forms).count("vc")


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """*o: ends consonant-vowel-consonant, the last not w, x or y."""
    n = len(word)
    return (
        n >= 3
        and _consonant(word, n - 3)
        and not _consonant(word, n - 2)
        and _consonant(word, n - 1)
        and word[-1] not in "wxy"
    )


_STEP2 = (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
    ("izer", "ize"), ("abli", "able"), ("alli", "al"), ("entli", "ent"), ("eli", "e"),
    ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
    ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
    ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
)  # fmt: skip
_STEP3 = (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
    ("ful", ""), ("ness", ""),
)  # fmt: skip
_STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion",
    "ou", "ism", "ate", "iti", "ous", "ive", "ize",
)  # fmt: skip


def _replace(word: str, rules: tuple[tuple[str, str], ...], min_measure: int) -> str:
    """Apply the rule of the longest matching suffix if its stem's measure exceeds the bound
    (no shorter rule is tried when the condition fails)."""
    matches = [(s, r) for s, r in rules if word.endswith(s)]
    if not matches:
        return word
    suffix, repl = max(matches, key=lambda m: len(m[0]))
    stem = word[: -len(suffix)]
    return stem + repl if _measure(stem) > min_measure else word


def _step1(word: str) -> str:
    if word.endswith("sses") or word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
    else:
        for suffix in ("ed", "ing"):
            if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
                word = word[: -len(suffix)]
                if word.endswith(("at", "bl", "iz")):
                    word += "e"
                elif _double_consonant(word) and word[-1] not in "lsz":
                    word = word[:-1]
                elif _measure(word) == 1 and _cvc(word):
                    word += "e"
                break
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    return word


def _step4(word: str) -> str:
    matches = [s for s in _STEP4 if word.endswith(s)]
    if not matches:
        return word
    suffix = max(matches, key=len)
    stem = word[: -len(suffix)]
    if suffix == "ion" and not stem.endswith(("s", "t")):
        return word
    return stem if _measure(stem) > 1 else word


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


def porter_stem(word: str) -> str:
    """The Porter (1980) stem of a lower-case word (words of one or two letters unchanged)."""
    if len(word) <= 2:
        return word
    word = _step1(word)
    word = _replace(word, _STEP2, 0)
    word = _replace(word, _STEP3, 0)
    return _step5(_step4(word))


# --------------------------------------------------------------------------------------------
# ROUGE-L
# --------------------------------------------------------------------------------------------


def rouge_tokens(text: str, stem: bool = True) -> list[str]:
    """``rouge_score``'s default tokens of ``text`` (module docstring)."""
    tokens = _NON_ALNUM.sub(" ", text.lower()).split()
    return [porter_stem(t) if stem and len(t) > 3 else t for t in tokens]


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence of two token lists (O(len a · len b))."""
    if not a or not b:
        return 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


@dataclass(frozen=True)
class RougeScore:
    precision: float
    recall: float
    fmeasure: float


def rouge_l(target: str, prediction: str, stem: bool = True) -> RougeScore:
    """ROUGE-L of ``prediction`` against ``target`` (``rouge_score`` argument order)."""
    ref, hyp = rouge_tokens(target, stem), rouge_tokens(prediction, stem)
    if not ref or not hyp:
        return RougeScore(0.0, 0.0, 0.0)
    lcs = lcs_length(ref, hyp)
    precision, recall = lcs / len(hyp), lcs / len(ref)
    f = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return RougeScore(precision, recall, f)


def rouge_score(answer: str, ground_truth: str) -> float:
    """The benchmark's ``compute_rouge_score``: ROUGE-L F1, 0.0 when either text is blank."""
    if not answer.strip() or not ground_truth.strip():
        return 0.0
    return rouge_l(ground_truth, answer).fmeasure
