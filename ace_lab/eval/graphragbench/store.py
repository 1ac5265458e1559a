"""Stored GraphRAG-Bench scores of a study: judge once, tabulate without the LLM.

``score_study(study, methods)`` scores every answer of ``methods`` in ``<results_dir>/<study>/``
with :func:`ace_lab.eval.graphragbench.score_question` — the metrics of the question's type:
Answer Correctness, ROUGE-L (Fact Retrieval, Complex Reasoning), Coverage (Contextual
Summarize, Creative Generation), Evidence Recall and Context Relevancy — and appends one JSON
line per answer to ``<results_dir>/<study>/graphragbench/scores.jsonl`` (in a folder of its own:
every ``*.jsonl`` beside the manifest is a method's records). The gold answer and evidence
statements come from the study's slice, the context texts from the record or the method's graph
(:mod:`ace_lab.eval.graphragbench.context`; each line says which, and how many context items had
no text). Every line names the judge model and identity and the embedding model.

A rerun skips answers already scored by the same judge and embedder on the same context, so
scoring resumes, and scores again an answer or context that changed (a method rerun).
``metrics`` scores a subset first (the judge calls are what a study costs: Context Relevancy
alone sends the whole context twice); each line lists the metrics it ``holds``, and a later run
with more metrics judges only the missing ones and writes one line that merges both (lines
written before ``holds`` existed hold every metric of their type). A judge
call that raised (:class:`~ace_lab.llm.LLMError`) is not written and is retried by the next
run; a judge call whose output was malformed falls back as the metric documents (listed in the
line's ``fallbacks``) and *is* written: it is the protocol's outcome, not a crash.

``load_scores`` reads the newest line per answer back; ``grb_table`` joins them to the records
a study holds now and tabulates per method × metric × question type, with the query-count-
weighted overall (:func:`ace_lab.eval.graphragbench.summarize`), 95 % bootstrap intervals and
the judge and embedder in columns; ``grb_wide`` pivots one metric to method × type.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ace_lab.config import Settings, load_settings
from ace_lab.embed import Embedder, get_embedder
from ace_lab.eval.graphragbench import IMPLEMENTED, metrics_for, score_question, summarize
from ace_lab.eval.graphragbench.context import StudyContext
from ace_lab.eval.reporting.report import StudyData, StudyReport
from ace_lab.eval.reporting.tables import paired_tests
from ace_lab.eval.studies.study import load_results, read_jsonl, study_dir, utc_now
from ace_lab.llm import LLM, LLMError, get_llm

log = logging.getLogger(__name__)

#: A study's score file.
GRB_FILE = "graphragbench/scores.jsonl"
#: Columns of a stored score (metrics a question's type does not use are None).
SCORE_COLUMNS = [
    "method", "id", "type", "answer", "context_key", *IMPLEMENTED, "factuality",
    "semantic_similarity", "fallbacks", "judge_model", "judge_identity", "embed_model",
    "context_source", "context_items", "context_missing", "holds", "scored",
]  # fmt: skip
#: What makes two scores the same: the answer, its context, the judge and the embedder.
_KEY = ["method", "id", "answer", "context_key", "judge_identity", "embed_model"]
#: Columns of :func:`grb_table`.
TABLE_COLUMNS = [
    "method", "metric", "type", "n", "mean", "low", "high", "mean [95% CI]", "judge_model",
    "judge_identity", "embed_model", "scored", "answers",
]  # fmt: skip


def grb_command(study: str, methods: Sequence[str] = ()) -> str:
    """The command that scores ``study``'s answers (all methods without ``methods``)."""
    named = f" --methods {' '.join(methods)}" if methods else ""
    return f"ace-lab grb-score --study {study}{named}"


def _answer(value: Any) -> str:
    return value if isinstance(value, str) else ""  # a failed answer (None, NaN) is empty


def context_key(ids: Any) -> str:
    """A short digest of a record's ``context_ids`` (its context changed when this does)."""
    items = [str(i) for i in ids] if isinstance(ids, list | tuple) else []
    return hashlib.sha1(json.dumps(items).encode()).hexdigest()[:16]


def _record_key(rec: dict[str, Any]) -> tuple[str, str, str, str]:
    """What a stored score is about: method, question, answer and context."""
    return rec["method"], rec["id"], _answer(rec["answer"]), context_key(rec.get("context_ids"))


def load_scores(study: str, settings: Settings | None = None) -> pd.DataFrame:
    """Every stored score of ``study``, the newest per answer, context, judge and embedder."""
    path = study_dir(study, settings) / GRB_FILE
    rows = read_jsonl(path) if path.exists() else []
    frame = pd.DataFrame(rows, columns=SCORE_COLUMNS)
    return frame.drop_duplicates(_KEY, keep="last").reset_index(drop=True)


def _line(
    rec: dict[str, Any],
    row: dict[str, Any],
    llm: LLM,
    embed_model: str,
    recovered: Any,
    earlier: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The stored line of one scored answer; ``earlier`` (the answer's stored line, when this
    run judged only the metrics it lacked) supplies every metric it already held."""
    held = _held(earlier) if earlier else []
    fresh = [m for m in IMPLEMENTED if m in row]
    values = {m: (row.get(m) if m in fresh else (earlier or {}).get(m)) for m in IMPLEMENTED}
    detail = row if "answer_correctness" in fresh or not earlier else earlier
    return {
        "method": rec["method"],
        "id": rec["id"],
        "type": row["type"],
        "answer": _answer(rec["answer"]),
        "context_key": context_key(rec.get("context_ids")),
        **values,
        "factuality": detail.get("factuality"),
        "semantic_similarity": detail.get("semantic_similarity"),
        "fallbacks": {**((earlier or {}).get("fallbacks") or {}), **row["fallbacks"]},
        # the judge is named even for a question whose only metric needed none
        "judge_model": row["judge_model"] or (earlier or {}).get("judge_model") or llm.model,
        "judge_identity": llm.model_identity,
        "embed_model": embed_model,
        "context_source": recovered.source,
        "context_items": len(recovered.texts),
        "context_missing": recovered.missing,
        "holds": [m for m in IMPLEMENTED if m in held or m in fresh],
        "scored": utc_now(),
    }


def _held(line: dict[str, Any]) -> list[str]:
    """The metrics a stored line holds (a line without ``holds``: every metric of its type)."""
    holds = line.get("holds")
    if isinstance(holds, list):
        return holds
    return metrics_for(line.get("type"))


def check_metrics(metrics: Sequence[str] | None) -> tuple[str, ...]:
    """``metrics`` validated against :data:`IMPLEMENTED` (None: all of them)."""
    if metrics is None:
        return IMPLEMENTED
    unknown = sorted(set(metrics) - set(IMPLEMENTED))
    if unknown or not metrics:
        named = f"unknown GraphRAG-Bench metric(s) {unknown}" if unknown else "no metric named"
        raise ValueError(f"{named}; choose from {IMPLEMENTED}")
    return tuple(m for m in IMPLEMENTED if m in metrics)


def score_study(
    study: str,
    methods: Sequence[str] | None = None,
    *,
    settings: Settings | None = None,
    llm: LLM | None = None,
    embedder: Embedder | None = None,
    metrics: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Score the answers of ``methods`` (every method when None) on ``metrics`` (every
    implemented one when None; each question only on those of its type) where this judge and
    embedder have not yet scored them on their current context; returns the new lines
    (``attrs["errors"]``: answers whose judge call raised, not written; ``attrs["unknown"]``:
    records whose question is not in the study's slice, skipped)."""
    include = check_metrics(metrics)
    settings = settings or load_settings()
    df = load_results(study, settings)
    if methods is not None:
        df = df[df["method"].isin(list(methods))]
    empty = pd.DataFrame(columns=SCORE_COLUMNS)
    empty.attrs.update(errors=0, unknown=0)
    if df.empty:
        return empty
    llm = llm or get_llm(settings)
    embedder = embedder if embedder is not None else get_embedder(settings.embed)
    stored = load_scores(study, settings)
    stored = stored[
        (stored["judge_identity"] == llm.model_identity)
        & (stored["embed_model"] == embedder.model_id)
    ]
    earlier = {
        (line["method"], line["id"], line["answer"], line["context_key"]): line
        for line in stored.to_dict("records")
    }
    empty.attrs.update(judge_identity=llm.model_identity, embed_model=embedder.model_id)
    context = StudyContext(study, settings, embedder)

    def missing(rec: dict[str, Any]) -> list[str]:
        question = context.questions.get(rec["id"])
        wanted = metrics_for(question.type if question else None, include)
        line = earlier.get(_record_key(rec))
        return wanted if line is None else [m for m in wanted if m not in _held(line)]

    todo = [r for r in df.to_dict("records") if missing(r)]
    if not todo:
        return empty
    unknown = [r for r in todo if r["id"] not in context.questions]
    for rec in unknown:
        log.warning(
            "%s %s: question %s is not in the study's slice", study, rec["method"], rec["id"]
        )
    # Contexts are recovered here, in one thread: graphs load once and are not shared.
    items = [(r, context.texts(r)) for r in todo if r["id"] in context.questions]
    path = study_dir(study, settings) / GRB_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    written: list[dict[str, Any]] = []
    lock = threading.Lock()

    def score(item: tuple[dict[str, Any], Any]) -> None:
        rec, recovered = item
        question = context.questions[rec["id"]]
        try:
            row = score_question(
                llm,
                question,
                _answer(rec["answer"]),
                list(recovered.texts),
                embedder,
                missing(rec),
            )
        except LLMError as exc:  # retried by the next run, never stored
            log.warning("%s %s %s: judge call failed: %s", study, rec["method"], rec["id"], exc)
            return
        line = _line(rec, row, llm, embedder.model_id, recovered, earlier.get(_record_key(rec)))
        with lock, path.open("a", encoding="utf-8") as out:  # written the moment it is scored
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            written.append(line)

    llm.map(score, items, desc=f"graphragbench {study}")
    frame = pd.DataFrame(written, columns=SCORE_COLUMNS)
    frame.attrs.update(empty.attrs, errors=len(items) - len(written), unknown=len(unknown))
    return frame


def _ci_text(row: dict[str, Any]) -> str:
    if pd.isna(row["mean"]):
        return ""
    return f"{row['mean']:.3f} [{row['low']:.3f}, {row['high']:.3f}]"


def _current_scores(
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
    rows["answer"] = [_answer(a) for a in rows["answer"]]
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
) -> pd.DataFrame:
    """Per method of ``methods`` with scores: one row per metric × question type and an
    ``Overall`` row per metric weighted by query count (``Σ n_t · mean_t / Σ n_t``), each with
    its 95 % bootstrap interval, the judge (model and identity) and the embedder.

    Only scores of the answer and context a record holds now count (a score about an answer a
    method no longer gives does not); ``scored`` / ``answers`` say how many of the method's
    current answers have one. ``judge_identity`` / ``embed_model`` keep one judge's and one
    embedder's scores (``score_study``'s ``attrs`` name those it used); without them every
    stored score counts and the model columns list each model involved.
    """
    if df.empty or scores.empty:
        return pd.DataFrame(columns=TABLE_COLUMNS)
    rows, joined = _current_scores(df, scores, methods, judge_identity, embed_model)
    out: list[pd.DataFrame] = []
    for method in methods:
        mine = joined[joined["method"] == method]
        if mine.empty:
            continue
        table = summarize(mine)
        identities = sorted({str(i) for i in mine["judge_identity"].dropna()})
        table.insert(0, "method", method)
        table["judge_identity"] = ", ".join(identities) or None
        table["scored"] = int(mine["id"].nunique())
        table["answers"] = int(rows.loc[rows["method"] == method, "id"].nunique())
        table["mean [95% CI]"] = [_ci_text(r) for r in table.to_dict("records")]
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
    types = [t for t in dict.fromkeys(part["type"]) if t != "Overall"] + ["Overall"]
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
) -> pd.DataFrame:
    """``metric`` of each of ``methods`` against ``baseline`` on the questions both have a
    score for: :func:`ace_lab.eval.reporting.tables.paired_tests` (paired bootstrap interval of the
    difference, sign-flip permutation p) over the stored scores of the current answers. Empty
    when ``baseline`` has none."""
    names = list(dict.fromkeys([baseline, *methods]))
    if df.empty or scores.empty:
        return pd.DataFrame()
    _, joined = _current_scores(df, scores, names, judge_identity, embed_model)
    joined = joined.dropna(subset=[metric])
    if baseline not in set(joined["method"]):
        return pd.DataFrame()
    present = [m for m in names if m != baseline and m in set(joined["method"])]
    return paired_tests(joined, baseline, present, metric=metric)


#: The metrics :func:`show_study` displays as method × type tables (the table keeps them all).
REPORTED = ("answer_correctness", "evidence_recall")
#: Columns of :func:`grb_paired`'s table that :func:`show_study` displays.
PAIRED_VIEW = [
    "method", "baseline", "n", "ANSWER_CORRECTNESS", "ANSWER_CORRECTNESS_baseline",
    "diff [95% CI]", "p_permutation", "context_tokens", "context_tokens_baseline",
]  # fmt: skip


def show_study(
    report: StudyReport, info: StudyData, methods: Sequence[str], baseline: str = ""
) -> pd.DataFrame:
    """Notebook 06's GraphRAG-Bench section for one study: the stored scores of ``methods``'
    current answers (:func:`grb_table`), how many are scored, the :data:`REPORTED` metrics as
    method × type tables, and the table exported as ``graphragbench`` beside the study; with a
    ``baseline`` also each method's Answer Correctness against it, paired (:func:`grb_paired`,
    exported as ``graphragbench_paired``). Without scores it prints the command that makes them
    and returns an empty table."""
    present = info.present(methods)
    scores = load_scores(info.study, report.settings)
    table = grb_table(info.df, scores, present)
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
    for metric in REPORTED:
        wide = grb_wide(table, metric)
        if not wide.empty:
            report.show(wide, f"{info.label}: {metric}, mean [95% CI] by question type")
    report.export(table, "graphragbench", info.study)
    paired = grb_paired(info.df, scores, baseline, present) if baseline else pd.DataFrame()
    if not paired.empty:
        title = f"{info.label}: Answer Correctness against {baseline} (paired)"
        report.show(paired[[c for c in PAIRED_VIEW if c in paired]], title)
        report.export(paired, "graphragbench_paired", info.study)
    return table
