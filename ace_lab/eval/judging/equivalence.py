"""Semantic correctness next to EM/F1: an LLM judges whether a prediction means the gold answer.

Lexical EM calls "Nattarasankottai, Tamil Nadu" wrong for the gold "Nattarasankottai" and
"Mohawk, Onondaga, Oneida, Cayuga, Seneca, Tuscarora" wrong for the same list with "and". The
MOSAIC paper reports such a semantic score beside EM/F1; here it is one judge call per answer
(prompt ``answer_equivalence``: question, gold answers, prediction → ``{"equivalent": bool}``),
with deterministic fast paths where no judgement is needed:

- the prediction equals a gold alias after SQuAD normalisation → equivalent (``by="exact"``);
- the prediction is empty after normalisation → not equivalent (``by="empty"``);
- a yes/no question (a gold alias is "yes" or "no") is answered by the prediction's first
  word: equivalent when it is the gold's yes/no, not when it is the other one or no yes/no at
  all (``by="yes_no"``; "yes, both are American" is right for "yes", "Joe Walsh" is wrong for
  "no" — the judge once accepted exactly that).

A judge output that is not valid JSON of that schema after the retries of ``LLM.json`` counts as
**not equivalent** (``by="fallback"``): an undecided judge never credits an answer, so the
semantic score errs towards EM. Every verdict names the judge (``judge_model``, the LLM's model
name, and ``judge_identity``, its full identity, e.g. the GGUF sha256), because a semantic
score means nothing without the model that gave it; tables print it next to the number.

:func:`score_frame` adds ``semantic``, ``semantic_by`` and ``judge_model`` columns to a results
frame (one judge call per distinct question/gold/prediction, through the LLM response cache, so
a rerun is free); :func:`agreement` and :func:`semantic_table` compare the score with EM.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel

from ace_lab.eval.metrics import is_yes_no, normalize_answer
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

#: How a verdict was reached: a fast path, the judge, or the judge's malformed-output default.
DecidedBy = Literal["exact", "empty", "yes_no", "judge", "fallback"]
#: A verdict is one JSON boolean: a few tokens of output.
MAX_TOKENS = 16
#: Characters of a prediction shown to the judge (a runaway generation is cut, not sent whole).
MAX_PREDICTION_CHARS = 400


class EquivalenceOutput(BaseModel):
    """The judge's reply."""

    equivalent: bool


@dataclass(frozen=True)
class Verdict:
    """Whether ``prediction`` is a correct answer, how that was decided, and by which judge."""

    equivalent: bool
    by: DecidedBy
    judge_model: str
    judge_identity: str

    @property
    def score(self) -> float:
        return 1.0 if self.equivalent else 0.0


def gold_text(golds: Sequence[str]) -> str:
    """The gold answer as the judge reads it: the first alias, the others as also accepted."""
    first, *rest = [str(g) for g in golds]
    return first + (f" (also accepted: {'; '.join(rest)})" if rest else "")


def fast_path(prediction: str, golds: Sequence[str]) -> tuple[DecidedBy, bool] | None:
    """``(how, equivalent)`` where no judge is needed (see module doc), else None."""
    pred = normalize_answer(prediction)
    if not pred:
        return "empty", False
    if any(pred == normalize_answer(g) for g in golds):
        return "exact", True
    if is_yes_no(golds):
        return "yes_no", any(pred.split()[0] == normalize_answer(g) for g in golds)
    return None


def judge_equivalence(
    llm: LLM, question: str, golds: Sequence[str], prediction: str, *, tag: str = "eval.semantic"
) -> Verdict:
    """Whether ``prediction`` answers ``question`` as one of ``golds`` does (see module doc)."""
    if not golds:
        raise ValueError("semantic correctness needs at least one gold answer")
    named = {"judge_model": llm.model, "judge_identity": llm.model_identity}
    decided = fast_path(prediction, golds)
    if decided is not None:
        return Verdict(decided[1], decided[0], **named)
    equivalent, fell_back = ask_judge(llm, question, golds, prediction, tag=tag)
    by: DecidedBy = "fallback" if fell_back else "judge"
    return Verdict(equivalent, by, **named)


def ask_judge(
    llm: LLM, question: str, golds: Sequence[str], prediction: str, *, tag: str = "eval.semantic"
) -> tuple[bool, bool]:
    """The judge's own verdict, no fast path: ``(equivalent, fell back)`` (a fallback is
    not equivalent). :func:`judge_equivalence` and the judge's calibration both call this."""
    result = llm.json(
        load_prompt("answer_equivalence").messages(
            question=question,
            gold=gold_text(golds),
            prediction=" ".join(str(prediction).split())[:MAX_PREDICTION_CHARS],
        ),
        EquivalenceOutput,
        tag=tag,
        default=lambda: EquivalenceOutput(equivalent=False),
        temperature=0.0,
        max_tokens=MAX_TOKENS,
    )
    return result.value.equivalent, result.fallback


def _key(row: dict[str, Any]) -> tuple[str, tuple[str, ...], str]:
    answer = row.get("answer")  # a failed or missing answer (None, NaN) is an empty one
    return (
        str(row["question"]),
        tuple(str(g) for g in row["gold"]),
        answer if isinstance(answer, str) else "",
    )


def score_frame(df: pd.DataFrame, llm: LLM, *, desc: str | None = None) -> pd.DataFrame:
    """``df`` (a results frame: ``question``, ``gold``, ``answer``) with three more columns.

    ``semantic`` is 1.0 / 0.0 (NaN where a row has no gold answer), ``semantic_by`` says how
    it was decided (:data:`DecidedBy`) and ``judge_model`` names the judge. Rows that share
    question, golds and answer share one verdict (one call), and every call goes through the
    LLM response cache. Judge calls run concurrently (``LLM.map``); ``desc`` shows a progress
    bar.
    """
    out = df.copy()
    rows = list(out.to_dict("records"))
    keys = [_key(r) if _has_gold(r) else None for r in rows]
    distinct = list(dict.fromkeys(k for k in keys if k is not None))
    verdicts = llm.map(lambda k: judge_equivalence(llm, k[0], k[1], k[2]), distinct, desc=desc)
    found = dict(zip(distinct, verdicts, strict=True))
    out["semantic"] = [found[k].score if k else math.nan for k in keys]
    out["semantic_by"] = [found[k].by if k else None for k in keys]
    out["judge_model"] = llm.model
    return out


def _has_gold(row: dict[str, Any]) -> bool:
    gold = row.get("gold")
    return isinstance(gold, (list, tuple)) and len(gold) > 0


def cohen_kappa(a: Sequence[float], b: Sequence[float]) -> float:
    """Cohen's kappa of two binary ratings (NaN when chance agreement is total)."""
    n = len(a)
    if n == 0 or n != len(b):
        raise ValueError(f"need two ratings of the same non-zero length, got {n} and {len(b)}")
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(a) / n, sum(b) / n
    chance = pa * pb + (1 - pa) * (1 - pb)
    return math.nan if chance == 1 else (observed - chance) / (1 - chance)


def agreement(semantic: Sequence[float], em: Sequence[float]) -> dict[str, float | int]:
    """How the semantic score relates to EM on the same answers.

    ``raw`` is the share of answers both call right or both call wrong, ``kappa`` Cohen's
    kappa; ``sem_only`` counts answers only the judge accepts (lexical misses such as
    "Mission, British Columbia"), ``em_only`` answers only EM accepts (0 when EM was computed
    from the same answers: the exact fast path makes every exact match equivalent).
    """
    pairs = [(float(s), float(e)) for s, e in zip(semantic, em, strict=True)]
    pairs = [(s, e) for s, e in pairs if not (math.isnan(s) or math.isnan(e))]
    if not pairs:
        return {
            "n": 0,
            "semantic": math.nan,
            "em": math.nan,
            "raw": math.nan,
            "kappa": math.nan,
            "sem_only": 0,
            "em_only": 0,
        }
    sem, ems = [s for s, _ in pairs], [e for _, e in pairs]
    n = len(pairs)
    return {
        "n": n,
        "semantic": sum(sem) / n,
        "em": sum(ems) / n,
        "raw": sum(s == e for s, e in pairs) / n,
        "kappa": cohen_kappa(sem, ems),
        "sem_only": sum(s > e for s, e in pairs),
        "em_only": sum(e > s for s, e in pairs),
    }


def semantic_table(scored: pd.DataFrame, by: Sequence[str] = ("method",)) -> pd.DataFrame:
    """Per group of a :func:`score_frame` output: n, EM, semantic accuracy, their agreement
    and the judge's name (every row of a group must share one judge)."""
    rows = []
    for keys, group in scored.groupby(list(by), sort=False):
        judges = sorted(set(group["judge_model"]))
        if len(judges) != 1:
            raise ValueError(f"group {keys} was scored by several judges: {judges}")
        stats = agreement(group["semantic"].tolist(), group["em"].tolist())
        named = dict(zip(by, keys if isinstance(keys, tuple) else (keys,), strict=True))
        rows.append(named | stats | {"judge_model": judges[0]})
    return pd.DataFrame(rows)
