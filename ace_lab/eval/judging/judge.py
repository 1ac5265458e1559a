"""Pairwise LLM judging of query-focused summaries (LightRAG / GraphRAG style).

An LLM compares two answers on Comprehensiveness, Diversity, Empowerment and Overall. LLM judges
favour whichever answer is shown first, so every pair is judged in both orders and a criterion
counts as a win only when both orders agree; any disagreement, or an order whose output could
not be parsed, counts as a tie. This trades some sensitivity for freedom from position bias.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import pandas as pd
from pydantic import BaseModel, BeforeValidator

from ace_lab.eval.statistics import bootstrap_ci
from ace_lab.graph.names import bounded_str
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

CRITERIA: tuple[str, ...] = ("comprehensiveness", "diversity", "empowerment", "overall")

Outcome = Literal["a", "b", "tie"]
_WINNERS = {"answer1": "Answer 1", "1": "Answer 1", "answer2": "Answer 2", "2": "Answer 2"}
_WINNERS |= {w: "Tie" for w in ("tie", "draw", "neither", "both", "equal")}


def _coerce_winner(value: Any) -> Any:
    """Map near-misses ("answer 1", "ANSWER_2", "draw") from grammar-less servers."""
    if not isinstance(value, str):
        return value
    key = "".join(ch for ch in value.lower() if ch.isalnum())
    return _WINNERS.get(key, value)


Winner = Annotated[Literal["Answer 1", "Answer 2", "Tie"], BeforeValidator(_coerce_winner)]
#: Explanations are for audit only; a bound keeps four of them within ~400 output tokens.
Explanation = bounded_str(300)


class CriterionVerdict(BaseModel):
    """The judge's choice on one criterion, with a short reason (kept for audit)."""

    winner: Winner
    explanation: Explanation


class JudgeVerdict(BaseModel):
    """One judge call: a verdict per criterion, answers referred to by position."""

    comprehensiveness: CriterionVerdict
    diversity: CriterionVerdict
    empowerment: CriterionVerdict
    overall: CriterionVerdict


def tie_verdict() -> JudgeVerdict:
    """The default for unparseable judge output: a tie everywhere, i.e. no evidence either way."""
    tie = CriterionVerdict(winner="Tie", explanation="fallback: no valid judge output")
    return JudgeVerdict(comprehensiveness=tie, diversity=tie, empowerment=tie, overall=tie)


@dataclass(frozen=True)
class PairVerdict:
    """The order-consistent outcome of judging answer ``a`` against answer ``b``.

    ``a_first`` / ``b_first`` are the raw verdicts with a (resp. b) shown as Answer 1;
    ``fallbacks`` names the orders ("a_first", "b_first") whose output fell back to a tie.
    """

    query: str
    outcomes: dict[str, Outcome]
    a_first: JudgeVerdict
    b_first: JudgeVerdict
    fallbacks: tuple[str, ...] = ()


def _by_answer(verdict: JudgeVerdict, criterion: str, first: Outcome) -> Outcome:
    """Translate a positional winner into "a" / "b" / "tie" given who was Answer 1."""
    second: Outcome = "b" if first == "a" else "a"
    winner = getattr(verdict, criterion).winner
    return {"Answer 1": first, "Answer 2": second}.get(winner, "tie")


def judge_pair(
    llm: LLM, query: str, a: str, b: str, *, max_tokens: int = 400, tag: str = "judge"
) -> PairVerdict:
    """Judge ``a`` against ``b`` in both orders; a criterion is won only if both orders agree."""
    prompt = load_prompt("judge_pairwise")
    results = {
        order: llm.json(
            prompt.messages(query=query, answer1=first, answer2=second),
            JudgeVerdict,
            tag=tag,
            default=tie_verdict,
            temperature=0.0,
            max_tokens=max_tokens,
        )
        for order, first, second in (("a_first", a, b), ("b_first", b, a))
    }
    fallbacks = tuple(order for order, result in results.items() if result.fallback)
    a_first, b_first = results["a_first"].value, results["b_first"].value
    outcomes: dict[str, Outcome] = {}
    for criterion in CRITERIA:
        forward = _by_answer(a_first, criterion, "a")
        backward = _by_answer(b_first, criterion, "b")
        outcomes[criterion] = forward if forward == backward and not fallbacks else "tie"
    return PairVerdict(query, outcomes, a_first, b_first, fallbacks)


def win_rates(verdicts: Sequence[PairVerdict]) -> pd.DataFrame:
    """Per criterion: wins of a and b, ties, n, fallback pairs and a's win rate.

    ``win_rate_a`` = (wins_a + 0.5 · ties) / n: a tie is half a win for each side, so the rate
    is 0.5 when the judge cannot separate the systems and a and b rates sum to 1 (NaN if n = 0).
    ``win_rate_low``/``win_rate_high`` are its 95% bootstrap interval over questions (each
    scores 1, 0.5 or 0 for a). ``first_shown`` is the position-bias check: the share of
    single-order verdicts (fallbacks left out) that named "Answer 1" the winner; near 1.0, the
    judge mostly prefers whichever answer it reads first, which the both-orders rule turns
    into ties.
    """
    rows = []
    for criterion in CRITERIA:
        outcomes = [v.outcomes[criterion] for v in verdicts]
        wins_a, wins_b, ties = (outcomes.count(o) for o in ("a", "b", "tie"))
        n = len(outcomes)
        interval = bootstrap_ci([{"a": 1.0, "b": 0.0}.get(o, 0.5) for o in outcomes])
        named = [
            getattr(verdict, criterion).winner
            for v in verdicts
            for order, verdict in (("a_first", v.a_first), ("b_first", v.b_first))
            if order not in v.fallbacks
        ]
        rows.append(
            {
                "criterion": criterion,
                "wins_a": wins_a,
                "wins_b": wins_b,
                "ties": ties,
                "n": n,
                "fallbacks": sum(bool(v.fallbacks) for v in verdicts),
                "win_rate_a": (wins_a + 0.5 * ties) / n if n else float("nan"),
                "win_rate_low": interval.low,
                "win_rate_high": interval.high,
                "first_shown": named.count("Answer 1") / len(named) if named else float("nan"),
            }
        )
    return pd.DataFrame(rows).set_index("criterion")
