"""The per-question chooser: expected accuracy and input tokens per method and question form.

A :class:`ChooserModel` holds, for each candidate method, its mean accuracy and mean input
tokens over the questions it was fitted on (bucket :data:`ALL`) and per question form, each
form's mean shrunk towards the method's overall mean by ``shrinkage`` pseudo-questions
(``(sum + k·mean) / (n_form + k)``): with about 20 questions a slice, a form seen twice must not
override the method's record. A question gets the method with the highest
``accuracy − λ · tokens``; ``λ = inf`` takes the cheapest. Ties go to the cheaper method, then
to the earlier one in ``methods``.

``λ`` is accuracy per input token; names and tables write it per million input tokens
(``auto:20`` is ``λ = 2e-5``: 1,000 more input tokens must buy 0.02 more accuracy).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace

import pandas as pd

from ace_lab.chooser.features import question_form

#: The bucket holding a method's overall mean (and every question when ``feature="none"``).
ALL = "*"
#: Features a model can bucket questions by.
FEATURES = ("form", "none")
_PER_MILLION = 1e-6


def parse_lam(text: str) -> float:
    """``λ`` from its written form: ``inf`` or a whole number per million input tokens."""
    if text == "inf":
        return math.inf
    if not text.isdigit():
        raise KeyError(f"λ {text!r}: write a whole number per million input tokens, or inf")
    return int(text) * _PER_MILLION


def lam_label(lam: float) -> str:
    """``λ`` as :func:`parse_lam` reads it (per million input tokens, or ``inf``)."""
    return "inf" if math.isinf(lam) else f"{lam / _PER_MILLION:g}"


@dataclass(frozen=True)
class ChooserModel:
    """Expected accuracy and input tokens per method and bucket, and the ``λ`` to choose at."""

    methods: tuple[str, ...]
    accuracy: dict[str, dict[str, float]]  # method → bucket → expected accuracy
    tokens: dict[str, dict[str, float]]  # method → bucket → expected input tokens
    lam: float = 0.0
    feature: str = "form"
    shrinkage: float = 5.0
    metric: str = "f1"
    n: int = 0  # questions fitted on
    slices: tuple[str, ...] = ()
    command: str = ""  # what regenerates the model
    counts: dict[str, int] = field(default_factory=dict)  # questions per bucket

    def bucket(self, question: str) -> str:
        """The bucket ``question`` falls in."""
        return question_form(question) if self.feature == "form" else ALL

    def expected(self, method: str, bucket: str) -> tuple[float, float]:
        """(accuracy, input tokens) ``method`` is expected to give a question of ``bucket``."""
        acc, tok = self.accuracy[method], self.tokens[method]
        return acc.get(bucket, acc[ALL]), tok.get(bucket, tok[ALL])

    def scores(self, bucket: str, lam: float | None = None) -> dict[str, float]:
        """Each method's utility for ``bucket``: accuracy − λ·tokens (−tokens at λ = inf)."""
        lam = self.lam if lam is None else lam
        out = {}
        for method in self.methods:
            acc, tok = self.expected(method, bucket)
            out[method] = -tok if math.isinf(lam) else acc - lam * tok
        return out

    def choose(self, bucket: str, lam: float | None = None) -> str:
        """The method with the highest utility (ties: cheaper, then earlier in ``methods``)."""
        scores = self.scores(bucket, lam)
        order = {m: i for i, m in enumerate(self.methods)}
        return max(
            self.methods,
            key=lambda m: (scores[m], -self.expected(m, bucket)[1], -order[m]),
        )

    def restricted(self, methods: Iterable[str]) -> ChooserModel:
        """The same model over the candidates in ``methods`` only (keeps this order)."""
        keep = set(methods)
        kept = tuple(m for m in self.methods if m in keep)
        if not kept:
            raise ValueError(f"none of the chooser's methods {self.methods} is allowed")
        return replace(self, methods=kept)

    def to_json(self) -> str:
        """The model as stable, sorted JSON (``λ = inf`` written as "inf")."""
        data = asdict(self)
        data["lam"] = lam_label(self.lam)
        return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> ChooserModel:
        data = json.loads(text)
        data["lam"] = parse_lam(str(data["lam"]))
        data["methods"] = tuple(data["methods"])
        data["slices"] = tuple(data.get("slices", ()))
        return cls(**data)


def _shrunk(
    rows: pd.DataFrame, methods: tuple[str, ...], column: str, k: float
) -> dict[str, dict[str, float]]:
    """Method → bucket → mean of ``column``, each bucket's shrunk towards the method's mean."""
    overall = rows.groupby("method")[column].mean()
    cells = rows.groupby(["method", "bucket"])[column].agg(["sum", "count"])
    out: dict[str, dict[str, float]] = {m: {ALL: round(float(overall[m]), 6)} for m in methods}
    for (method, bucket), cell in cells.iterrows():
        if method in out and bucket != ALL:
            total = float(cell["sum"]) + k * float(overall[method])
            out[method][str(bucket)] = round(total / (float(cell["count"]) + k), 6)
    return {m: dict(sorted(b.items())) for m, b in out.items()}


def fit(
    frame: pd.DataFrame,
    *,
    methods: Iterable[str] | None = None,
    feature: str = "form",
    shrinkage: float = 5.0,
    lam: float = 0.0,
    **about: object,
) -> ChooserModel:
    """A model fitted on ``frame`` (one row per question × method: ``id``, ``method``,
    ``accuracy``, ``tokens`` and ``bucket``, or ``question`` to compute it from).

    ``feature="none"`` puts every question in :data:`ALL` (the best method on average).
    ``about`` fills the model's descriptive fields (``metric``, ``slices``, ``command``).
    """
    if feature not in FEATURES:
        raise ValueError(f"unknown chooser feature {feature!r}; use one of {FEATURES}")
    rows = frame.copy()
    if feature == "none":
        rows["bucket"] = ALL
    elif "bucket" not in rows:
        rows["bucket"] = rows["question"].map(question_form)
    present = list(dict.fromkeys(rows["method"]))
    chosen = tuple(m for m in (methods or present) if m in set(present))
    if not chosen:
        raise ValueError("no rows to fit the chooser on")
    rows = rows[rows["method"].isin(chosen)]
    questions = rows.drop_duplicates("id")
    return ChooserModel(
        methods=chosen,
        accuracy=_shrunk(rows, chosen, "accuracy", shrinkage),
        tokens=_shrunk(rows, chosen, "tokens", shrinkage),
        lam=lam,
        feature=feature,
        shrinkage=shrinkage,
        n=len(questions),
        counts={str(b): int(c) for b, c in sorted(questions["bucket"].value_counts().items())},
        **about,  # type: ignore[arg-type]
    )
