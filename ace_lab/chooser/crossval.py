"""Scoring the chooser honestly: never on a question (or slice) it was fitted on.

Every function takes a per-question outcome frame: one row per question × candidate method
with ``id``, ``method``, ``accuracy`` (F1 or judged accuracy), ``tokens`` (input tokens) and
``question`` or a precomputed ``bucket``; every question has a row for every candidate.
:func:`leave_one_out` refits the model without each question in turn and scores the method it
picks for that question; :func:`k_fold` does the same a fold at a time, over several seeded
shuffles; :func:`held_out` fits on one frame and scores another (a slice left out);
:func:`oracle` picks, per question, the method that was best in hindsight.

Leave-one-out is pessimistic when candidates are nearly tied: leaving out a question a method
got right lowers that method's mean on exactly the fold that scores it, so the pick is
anti-correlated with the held-out outcome. Repeated k-fold suffers less from this, which is why
tables report both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ace_lab.chooser.features import question_form
from ace_lab.chooser.model import ALL, ChooserModel, fit

#: Columns of a choice frame (one row per question × λ).
CHOICE_COLUMNS = ["id", "lam", "chosen", "accuracy", "tokens"]


def _outcomes(frame: pd.DataFrame) -> dict[tuple[str, str], tuple[float, float]]:
    return {
        (str(r.id), str(r.method)): (float(r.accuracy), float(r.tokens))
        for r in frame.itertuples(index=False)
    }


def _bucket(model: ChooserModel, rows: pd.DataFrame) -> str:
    if model.feature != "form":
        return ALL
    first = rows.iloc[0]
    return str(first["bucket"]) if "bucket" in rows else question_form(str(first["question"]))


def _score(
    model: ChooserModel, test: pd.DataFrame, lams: Sequence[float]
) -> list[dict[str, object]]:
    outcome = _outcomes(test)
    rows = []
    for qid, question in test.groupby("id", sort=False):
        bucket = _bucket(model, question)
        for lam in lams:
            chosen = model.choose(bucket, lam)
            acc, tok = outcome[(str(qid), chosen)]
            rows.append({"id": qid, "lam": lam, "chosen": chosen, "accuracy": acc, "tokens": tok})
    return rows


def leave_one_out(
    frame: pd.DataFrame,
    lams: Sequence[float],
    *,
    feature: str = "form",
    shrinkage: float = 5.0,
    methods: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per question and ``λ``: the method a model fitted on every *other* question picks, and
    what it scored on this one."""
    rows: list[dict[str, object]] = []
    for qid in frame["id"].drop_duplicates():
        train = frame[frame["id"] != qid]
        model = fit(train, methods=methods, feature=feature, shrinkage=shrinkage)
        rows += _score(model, frame[frame["id"] == qid], lams)
    return pd.DataFrame(rows, columns=CHOICE_COLUMNS)


def k_fold(
    frame: pd.DataFrame,
    lams: Sequence[float],
    *,
    folds: int = 5,
    repeats: int = 10,
    seed: int = 0,
    feature: str = "form",
    shrinkage: float = 5.0,
) -> pd.DataFrame:
    """Per repeat, question and ``λ``: the pick of a model fitted on the other folds (the
    questions shuffled by ``seed + repeat``), and what it scored; column ``repeat`` added."""
    ids = list(frame["id"].drop_duplicates())
    parts = []
    for repeat in range(repeats):
        order = np.random.default_rng(seed + repeat).permutation(len(ids))
        for fold in range(folds):
            test_ids = {ids[i] for i in order[fold::folds]}
            if not test_ids:
                continue
            test = frame[frame["id"].isin(test_ids)]
            train = frame[~frame["id"].isin(test_ids)]
            model = fit(train, feature=feature, shrinkage=shrinkage)
            scored = pd.DataFrame(_score(model, test, lams), columns=CHOICE_COLUMNS)
            parts.append(scored.assign(repeat=repeat))
    return pd.concat(parts, ignore_index=True)


def held_out(
    train: pd.DataFrame,
    test: pd.DataFrame,
    lams: Sequence[float],
    *,
    feature: str = "form",
    shrinkage: float = 5.0,
) -> pd.DataFrame:
    """Per question of ``test`` and ``λ``: the pick of a model fitted on ``train`` alone, over
    the methods both hold."""
    common = [m for m in dict.fromkeys(test["method"]) if m in set(train["method"])]
    if set(train["id"]) & set(test["id"]):
        raise ValueError("held-out questions are also in the training frame")
    model = fit(train, methods=common, feature=feature, shrinkage=shrinkage)
    return pd.DataFrame(_score(model, test, lams), columns=CHOICE_COLUMNS)


def oracle(frame: pd.DataFrame, lams: Sequence[float]) -> pd.DataFrame:
    """Per question and ``λ``: the method with the best *actual* accuracy − λ·tokens."""
    order = {m: i for i, m in enumerate(dict.fromkeys(frame["method"]))}
    rows = []
    for qid, question in frame.groupby("id", sort=False):
        for lam in lams:

            def key(r: pd.Series, lam: float = lam) -> tuple[float, float, int]:
                value = -r.tokens if math.isinf(lam) else r.accuracy - lam * r.tokens
                return (value, -r.tokens, -order[r.method])

            best = max((r for _, r in question.iterrows()), key=key)
            rows.append(
                {
                    "id": qid,
                    "lam": lam,
                    "chosen": best.method,
                    "accuracy": float(best.accuracy),
                    "tokens": float(best.tokens),
                }
            )
    return pd.DataFrame(rows, columns=CHOICE_COLUMNS)


def summarize(choices: pd.DataFrame) -> pd.DataFrame:
    """Per ``λ``: questions, mean accuracy, mean input tokens and each method's share of the
    picks (over every repeat when ``choices`` has several)."""
    rows = []
    for lam, sub in choices.groupby("lam", sort=True):
        share = sub["chosen"].value_counts(normalize=True)
        rows.append(
            {
                "lam": lam,
                "n": sub["id"].nunique(),
                "accuracy": float(sub["accuracy"].mean()),
                "tokens": float(sub["tokens"].mean()),
                "picked": ", ".join(f"{m} {100 * c:.0f}%" for m, c in sorted(share.items())),
            }
        )
    return pd.DataFrame(rows, columns=["lam", "n", "accuracy", "tokens", "picked"])
