"""Stored GraphRAG-Bench scores of a study and the tables read from them, without the LLM.

Scores are written by :func:`ace_lab.eval.graphragbench.run.score_study` (``ace-lab grb-score``)
to ``<results_dir>/<study>/graphragbench/scores.jsonl`` (in a folder of its own: every
``*.jsonl`` beside the manifest is a method's records), one JSON line per answer with the
metrics it ``holds``, the judge's per-statement ``verdicts`` and the judge and embedder; lines
written before a column existed (``verdicts``, ``faithfulness``) load with it empty.

``load_scores`` reads the newest line per answer back; ``grb_table`` joins them to the records
a study holds now and tabulates per method × metric × question type, with the query-count-
weighted overall (:func:`ace_lab.eval.graphragbench.summarize`, labelled
:data:`~ace_lab.eval.graphragbench.scoring.OVERALL`), 95 % bootstrap intervals, the judge and
embedder, and each judged metric's judge calibration (:mod:`ace_lab.eval.judging.calibration`);
``grb_wide`` pivots one metric to method × type; :mod:`ace_lab.eval.graphragbench.views` shows
every metric side by side and the slices pooled.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ace_lab.config import Settings
from ace_lab.data.graphragbench import QUESTION_TYPES
from ace_lab.eval.graphragbench.cells import calibration_cell, complete, score_identities
from ace_lab.eval.graphragbench.scoring import IMPLEMENTED, OVERALL, summarize
from ace_lab.eval.graphragbench.views import POOLED_VIEW, grb_pooled, pooled_summary, type_views
from ace_lab.eval.judging.calibration import Calibrations, load_calibrations
from ace_lab.eval.reporting.report import StudyData, StudyReport
from ace_lab.eval.reporting.tables import paired_tests
from ace_lab.eval.studies.study import read_jsonl, study_dir

#: A study's score file.
GRB_FILE = "graphragbench/scores.jsonl"
#: Columns of a stored score (metrics a question's type does not use are None).
SCORE_COLUMNS = [
    *("method", "id", "type", "answer", "context_key"),
    *IMPLEMENTED,
    *("factuality", "semantic_similarity", "fallbacks", "verdicts"),
    *("judge_model", "judge_identity", "judge_prompts", "embed_model"),
    *("context_source", "context_items", "context_missing", "holds", "scored"),
]
#: What makes two scores the same: the answer, its context, the judge and the embedder.
_KEY = ["method", "id", "answer", "context_key", "judge_identity", "embed_model"]
#: Columns of :func:`grb_table`.
TABLE_COLUMNS = [
    *("method", "metric", "type", "n", "mean", "low", "high", "mean [95% CI]"),
    *("judge_model", "judge_identity", "embed_model", "judge_calibration", "scored", "answers"),
]


def grb_command(study: str, methods: Sequence[str] = ()) -> str:
    """The command that scores ``study``'s answers (all methods without ``methods``)."""
    named = f" --methods {' '.join(methods)}" if methods else ""
    return f"ace-lab grb-score --study {study}{named}"


def answer_text(value: Any) -> str:
    """A record's answer as text."""
    return value if isinstance(value, str) else ""  # a failed answer (None, NaN) is empty


def context_key(ids: Any) -> str:
    """A short digest of a record's ``context_ids`` (its context changed when this does)."""
    items = [str(i) for i in ids] if isinstance(ids, list | tuple) else []
    return hashlib.sha1(json.dumps(items).encode()).hexdigest()[:16]


def record_key(rec: dict[str, Any]) -> tuple[str, str, str, str]:
    """What a stored score is about: method, question, answer and context."""
    return rec["method"], rec["id"], answer_text(rec["answer"]), context_key(rec.get("context_ids"))


def load_scores(study: str, settings: Settings | None = None) -> pd.DataFrame:
    """Every stored score of ``study``, the newest per answer, context, judge and embedder."""
    path = study_dir(study, settings) / GRB_FILE
    rows = read_jsonl(path) if path.exists() else []
    frame = pd.DataFrame(rows, columns=SCORE_COLUMNS)
    return frame.drop_duplicates(_KEY, keep="last").reset_index(drop=True)


def _ci_text(row: dict[str, Any]) -> str:
    if pd.isna(row["mean"]):
        return ""
    return f"{row['mean']:.3f} [{row['low']:.3f}, {row['high']:.3f}]"


def current_scores(
    df: pd.DataFrame,
    scores: pd.DataFrame,
    methods: Sequence[str],
    judge_identity: str | None,
    embed_model: str | None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``methods``' records and the stored scores of the answer and context each holds now
    (of one judge and one embedder when named), joined on method, question, answer, context."""
    if judge_identity is not None:
        scores = scores[scores["judge_identity"] == judge_identity]
    if embed_model is not None:
        scores = scores[scores["embed_model"] == embed_model]
    rows = df[df["method"].isin(list(methods))].copy()
    rows["answer"] = [answer_text(a) for a in rows["answer"]]
    ids = rows["context_ids"] if "context_ids" in rows else pd.Series([None] * len(rows))
    rows["context_key"] = [context_key(i) for i in ids]
    on = ["method", "id", "answer", "context_key"]
    keep = [c for c in SCORE_COLUMNS if c != "scored"]
    sizes = ["context_tokens"] if "context_tokens" in rows else []  # for the paired table
    return rows, rows[on + sizes].merge(scores[keep], on=on, how="inner")


def grb_table(
    df: pd.DataFrame,
    scores: pd.DataFrame,
    methods: Sequence[str],
    *,
    judge_identity: str | None = None,
    embed_model: str | None = None,
    calibrations: Calibrations | None = None,
    settings: Settings | None = None,
) -> pd.DataFrame:
    """Per method of ``methods`` with scores: one row per metric × question type and an
    overall row per metric (:data:`OVERALL`) weighted by query count (``Σ n_t · mean_t / Σ
    n_t``), each with its 95 % bootstrap interval, the judge (model and identity), the embedder
    and the judge's calibration on the metric (``calibrations``, default
    :func:`~ace_lab.eval.judging.calibration.load_calibrations`). A metric the benchmark gives
    a type that has no score is a row that says why
    (:func:`~ace_lab.eval.graphragbench.cells.complete`).

    Only scores of the answer and context a record holds now count (a score about an answer a
    method no longer gives does not); ``scored`` / ``answers`` say how many of the method's
    current answers have one. ``judge_identity`` / ``embed_model`` keep one judge's and one
    embedder's scores (``score_study``'s ``attrs`` name those it used); without them every
    stored score counts and the model columns list each model involved.
    """
    if df.empty or scores.empty:
        return pd.DataFrame(columns=TABLE_COLUMNS)
    rows, joined = current_scores(df, scores, methods, judge_identity, embed_model)
    calibrations = load_calibrations(settings=settings) if calibrations is None else calibrations
    out: list[pd.DataFrame] = []
    for method in methods:
        mine = joined[joined["method"] == method]
        if mine.empty:
            continue
        table = summarize(mine)
        table["mean [95% CI]"] = [_ci_text(r) for r in table.to_dict("records")]
        answered = rows.loc[rows["method"] == method]
        kinds = [k for k in QUESTION_TYPES if k in set(answered.get("type", mine["type"]))]
        table = complete(table, mine, kinds)
        identities = sorted({str(i) for i in mine["judge_identity"].dropna()})
        table.insert(0, "method", method)
        table["judge_identity"] = ", ".join(identities) or None
        table["judge_calibration"] = [
            calibration_cell(m, calibrations, score_identities(mine, m)) for m in table["metric"]
        ]
        table["scored"] = int(mine["id"].nunique())
        table["answers"] = int(answered["id"].nunique())
        out.append(table)
    if not out:
        return pd.DataFrame(columns=TABLE_COLUMNS)
    return pd.concat(out, ignore_index=True)[TABLE_COLUMNS]


def grb_wide(table: pd.DataFrame, metric: str = "answer_correctness") -> pd.DataFrame:
    """One metric of a :func:`grb_table` as method rows × type columns (``mean [95% CI]``),
    with the judge and embedder last."""
    part = table[table["metric"] == metric]
    if part.empty:
        return pd.DataFrame()
    wide = part.pivot_table(
        index="method", columns="type", values="mean [95% CI]", aggfunc="first", sort=False
    )
    types = [t for t in dict.fromkeys(part["type"]) if t != OVERALL] + [OVERALL]
    wide = wide[[t for t in types if t in wide.columns]]
    models = part.drop_duplicates("method").set_index("method")
    for column in ("judge_model", "embed_model"):
        wide[column] = models[column].reindex(wide.index)
    return wide.reset_index()


def grb_paired(
    df: pd.DataFrame,
    scores: pd.DataFrame,
    baseline: str,
    methods: Sequence[str],
    metric: str = "answer_correctness",
    *,
    judge_identity: str | None = None,
    embed_model: str | None = None,
    calibrations: Calibrations | None = None,
    settings: Settings | None = None,
) -> pd.DataFrame:
    """``metric`` of each of ``methods`` against ``baseline`` on the questions both have a
    score for: :func:`ace_lab.eval.reporting.tables.paired_tests` (paired bootstrap interval of the
    difference, sign-flip permutation p) over the stored scores of the current answers, with
    ``judge_calibration``: the calibration of the judge(s) behind both sides' scores
    (``calibrations``, default the committed ones), so a judged difference and its p-value are
    never read without it. Empty when ``baseline`` has none."""
    names = list(dict.fromkeys([baseline, *methods]))
    if df.empty or scores.empty:
        return pd.DataFrame()
    _, joined = current_scores(df, scores, names, judge_identity, embed_model)
    joined = joined.dropna(subset=[metric])
    if baseline not in set(joined["method"]):
        return pd.DataFrame()
    present = [m for m in names if m != baseline and m in set(joined["method"])]
    paired = paired_tests(joined, baseline, present, metric=metric)
    calibrations = load_calibrations(settings=settings) if calibrations is None else calibrations
    paired["judge_calibration"] = [
        calibration_cell(
            metric,
            calibrations,
            score_identities(joined[joined["method"].isin([m, baseline])], metric),
        )
        for m in paired["method"]
    ]
    return paired


#: Columns of :func:`grb_paired`'s table that :func:`show_study` displays.
PAIRED_VIEW = [
    *("method", "baseline", "n", "ANSWER_CORRECTNESS", "ANSWER_CORRECTNESS_baseline"),
    *("diff [95% CI]", "p_permutation", "context_tokens", "context_tokens_baseline"),
    "judge_calibration",
]


def show_study(
    report: StudyReport, info: StudyData, methods: Sequence[str], baseline: str = ""
) -> pd.DataFrame:
    """Notebook 06's GraphRAG-Bench section for one study: the stored scores of ``methods``'
    current answers (:func:`grb_table`), how many are scored, one table per question type with
    every metric the benchmark gives it (:func:`~ace_lab.eval.graphragbench.views.type_views`:
    judge calibration in the headers, missing metrics saying why), and the table exported as
    ``graphragbench`` beside the study; with a ``baseline`` also each method's Answer
    Correctness against it, paired (:func:`grb_paired`, exported as ``graphragbench_paired``).
    Without scores it prints the command that makes them and returns an empty table."""
    present = info.present(methods)
    scores = load_scores(info.study, report.settings)
    table = grb_table(info.df, scores, present, settings=report.settings)
    if table.empty:
        print(
            f"{info.label}: no GraphRAG-Bench scores yet; make them with "
            f"{grb_command(info.study, present)}"
        )
        return table
    counts = table.drop_duplicates("method")[["method", "scored", "answers"]].values
    print(
        f"{info.label}: answers scored / answered:", ", ".join(f"{m} {s}/{a}" for m, s, a in counts)
    )
    for kind, view in type_views(table).items():
        report.show(view, f"{info.label}: {kind}, mean [95% CI] n")
    report.export(table, "graphragbench", info.study)
    paired = (
        grb_paired(info.df, scores, baseline, present, settings=report.settings)
        if baseline
        else pd.DataFrame()
    )
    if not paired.empty:
        title = f"{info.label}: Answer Correctness against {baseline} (paired)"
        report.show(paired[[c for c in PAIRED_VIEW if c in paired]], title)
        report.export(paired, "graphragbench_paired", info.study)
    return table


def pooled_table(
    infos: Mapping[str, StudyData], methods: Sequence[str], baseline: str, settings: Settings
) -> pd.DataFrame:
    """Each method's Answer Correctness against ``baseline`` pooled over the GraphRAG-Bench
    slices of ``infos`` (:func:`~ace_lab.eval.graphragbench.views.grb_pooled` over the stored
    scores of the current answers), with the ACC statement judge's calibration; empty when no
    method shares a scored slice with ``baseline``."""
    joined = {}
    for info in infos.values():
        present = info.present(methods)
        scores = load_scores(info.study, settings)
        if not scores.empty and present:
            joined[info.label] = current_scores(info.df, scores, present, None, None)[1]
    pooled = grb_pooled(joined, baseline, methods)
    if not pooled.empty:
        calibrations = load_calibrations(settings=settings)
        scored = pd.concat(list(joined.values()), ignore_index=True)
        pooled["judge_calibration"] = [
            calibration_cell(
                "answer_correctness",
                calibrations,
                score_identities(
                    scored[scored["method"].isin([m, baseline])], "answer_correctness"
                ),
            )
            for m in pooled["method"]
        ]
    return pooled


def show_pooled(
    report: StudyReport,
    infos: Mapping[str, StudyData],
    methods: Sequence[str],
    baseline: str,
    name: str = "graphragbench_pooled",
) -> pd.DataFrame:
    """:func:`pooled_table`, shown with the detectable difference under it and exported as
    ``name`` beside the results."""
    pooled = pooled_table(infos, methods, baseline, report.settings)
    if pooled.empty:
        print(f"no method shares a scored GraphRAG-Bench slice with {baseline}: nothing to pool")
        return pooled
    report.show(pooled[[*POOLED_VIEW, "judge_calibration"]], f"ACC against {baseline}, pooled")
    print(pooled_summary(pooled))
    report.export(pooled, name)
    return pooled
