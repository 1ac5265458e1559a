"""Stored semantic-correctness verdicts of a study: judge once, tabulate without the LLM.

``semantic_study(study, methods)`` judges every answer of ``methods`` in
``<results_dir>/<study>/`` with :func:`ace_lab.eval.judging.equivalence.judge_equivalence` (fast
paths
first, then one judge call per distinct question/gold/prediction) and appends one JSON line per
answer to ``<results_dir>/<study>/semantic/verdicts.jsonl``: method, question id, the answer
judged, the verdict, how it was decided and the judge's name and identity. A rerun skips answers
already judged by the same judge, so judging resumes, and judges again an answer that changed (a
method rerun); a call that raised is not written and is retried by the next run, while a verdict
that fell back on malformed judge output (``by="fallback"``, counted as not equivalent) is the
protocol's outcome and is written.

``load_semantic`` reads the newest verdict per (method, question, answer) back and
``semantic_report`` joins them to a study's records — only verdicts about the answer a record
holds now count — and tabulates semantic accuracy next to EM with their agreement
(:func:`ace_lab.eval.judging.equivalence.semantic_table`), for notebook 06.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ace_lab.config import Settings
from ace_lab.eval.judging.calibration import Calibrations, cells, load_calibrations
from ace_lab.eval.judging.equivalence import judge_equivalence, semantic_table
from ace_lab.eval.judging.identity import JudgeIdentity, prompt_fingerprint
from ace_lab.eval.studies.study import load_results, read_jsonl, study_dir, utc_now
from ace_lab.llm import LLM, LLMError, get_llm

log = logging.getLogger(__name__)

#: A study's verdict file (in a folder of its own: every ``*.jsonl`` beside the manifest is a
#: method's records).
SEMANTIC_FILE = "semantic/verdicts.jsonl"
#: Columns of a stored verdict.
#: The calibrated metric behind the semantic score (:mod:`ace_lab.eval.judging.calibration`).
EQUIVALENCE = "semantic_equivalence"
VERDICT_COLUMNS = [
    *("method", "id", "answer", "semantic", "by", "judge_model", "judge_identity", "judge_prompt"),
]


def semantic_command(study: str, methods: Sequence[str] = ()) -> str:
    """The command that judges ``study``'s answers (all methods without ``methods``)."""
    named = f" --methods {' '.join(methods)}" if methods else ""
    return f"ace-lab semantic --study {study}{named}"


def _has_gold(gold: Any) -> bool:
    return isinstance(gold, list | tuple) and len(gold) > 0  # pairwise-judged sets have none


def _answer(value: Any) -> str:
    return value if isinstance(value, str) else ""  # a failed answer (None, NaN) is empty


def load_semantic(study: str, settings: Settings | None = None) -> pd.DataFrame:
    """Every stored verdict of ``study``, the newest per (method, id, answer, judge identity
    and prompt)."""
    path = study_dir(study, settings) / SEMANTIC_FILE
    rows = read_jsonl(path) if path.exists() else []
    frame = pd.DataFrame(rows, columns=[*VERDICT_COLUMNS, "judged"])
    keys = ["method", "id", "answer", "judge_identity", "judge_prompt"]
    return frame.drop_duplicates(keys, keep="last").reset_index(drop=True)


def semantic_study(
    study: str,
    methods: Sequence[str] | None = None,
    *,
    settings: Settings | None = None,
    llm: LLM | None = None,
) -> pd.DataFrame:
    """Judge the answers of ``methods`` (every method when None) not yet judged by this
    judge; returns the new verdicts (``attrs["errors"]``: calls that raised, not written)."""
    df = load_results(study, settings)
    if methods is not None:
        df = df[df["method"].isin(list(methods))]
    df = df[df["gold"].map(_has_gold).astype(bool)]
    if df.empty:
        return pd.DataFrame(columns=VERDICT_COLUMNS)
    llm = llm or get_llm(settings)
    stored = load_semantic(study, settings)
    prompt = prompt_fingerprint(EQUIVALENCE)
    stored = stored[
        (stored["judge_identity"] == llm.model_identity) & (stored["judge_prompt"] == prompt)
    ]
    done = set(zip(stored["method"], stored["id"], stored["answer"], strict=True))
    todo = [
        r for r in df.to_dict("records") if (r["method"], r["id"], _answer(r["answer"])) not in done
    ]
    path = study_dir(study, settings) / SEMANTIC_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    written: list[dict[str, Any]] = []
    lock = threading.Lock()

    def judge(row: dict[str, Any]) -> None:
        try:
            verdict = judge_equivalence(llm, row["question"], row["gold"], _answer(row["answer"]))
        except LLMError as exc:  # retried by the next run, never stored
            log.warning("%s %s %s: judge call failed: %s", study, row["method"], row["id"], exc)
            return
        line = {
            "method": row["method"],
            "id": row["id"],
            "answer": _answer(row["answer"]),
            "semantic": verdict.score,
            "by": verdict.by,
            "judge_model": verdict.judge_model,
            "judge_identity": verdict.judge_identity,
            "judge_prompt": prompt,
            "judged": utc_now(),
        }
        with lock, path.open("a", encoding="utf-8") as out:  # written the moment it is judged
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            written.append(line)

    llm.map(judge, todo, desc=f"semantic {study}")
    frame = pd.DataFrame(written, columns=[*VERDICT_COLUMNS, "judged"])
    frame.attrs["errors"] = len(todo) - len(written)
    return frame


def _identities(verdicts: pd.DataFrame) -> Counter[JudgeIdentity]:
    """How many of ``verdicts`` each judge identity (model identity, prompt) gave."""
    pairs = zip(verdicts["judge_identity"], verdicts["judge_prompt"], strict=True)
    return Counter(JudgeIdentity(str(m or ""), p if isinstance(p, str) else "") for m, p in pairs)


#: The columns a verdict brings to the record it judged (:func:`with_verdicts`).
JUDGED_COLUMNS = ["semantic", "judge_model", "judge_identity", "judge_prompt"]


def with_verdicts(df: pd.DataFrame, verdicts: pd.DataFrame) -> pd.DataFrame:
    """``df`` with each record's latest verdict about the answer it holds now (a verdict about
    an answer a record no longer holds does not count): ``semantic`` (1.0 / 0.0, NaN where
    none) and the judge that gave it (:data:`JUDGED_COLUMNS`)."""
    if df.empty:
        return df
    rows = df.drop(columns=[c for c in JUDGED_COLUMNS if c in df])
    rows["answer"] = [_answer(a) for a in rows["answer"]] if "answer" in rows else ""
    latest = verdicts.drop_duplicates(["method", "id", "answer"], keep="last")
    keep = ["method", "id", "answer", *JUDGED_COLUMNS]
    joined = rows.merge(latest[keep], on=["method", "id", "answer"], how="left")
    joined["semantic"] = pd.to_numeric(joined["semantic"], errors="coerce")
    return joined


def judge_cell(
    judged: pd.DataFrame,
    calibrations: Calibrations | None = None,
    settings: Settings | None = None,
) -> str:
    """The calibration cell (:func:`~ace_lab.eval.judging.calibration.cells`) of the judges
    behind the verdicts of ``judged`` (rows of :func:`with_verdicts`; those without a verdict
    are left out); ``calibrations``: the committed ones by default."""
    calibrations = load_calibrations(settings=settings) if calibrations is None else calibrations
    return cells(EQUIVALENCE, calibrations, _identities(judged[judged["semantic"].notna()]))


def semantic_report(
    df: pd.DataFrame,
    verdicts: pd.DataFrame,
    methods: Sequence[str],
    calibrations: Calibrations | None = None,
    settings: Settings | None = None,
) -> pd.DataFrame:
    """Per method of ``methods`` with verdicts: n, EM, semantic accuracy, their agreement and
    the judge; ``judged`` / ``answers`` say how many of the method's current answers have a
    verdict (a verdict about an answer a record no longer holds does not count). An answer
    judged by several judges (another model, or another build of the same one: its identity
    differs) counts once, with its latest verdict. ``judge_calibration`` is the calibration
    accuracy on semantic equivalence and n of the exact judge (model, server build, prompt) that
    gave the verdicts, marked "judge uninformative" below the threshold and "judge not
    calibrated" where that judge never was; a method whose verdicts come from several judges
    says each one's share (``calibrations``: the committed ones by default;
    :mod:`ace_lab.eval.judging.calibration`)."""
    rows = df[df["method"].isin(list(methods))].copy()
    rows = rows[rows["gold"].map(_has_gold).astype(bool)]
    if rows.empty or verdicts.empty:
        return pd.DataFrame()
    joined = with_verdicts(rows, verdicts)
    joined = joined[joined["semantic"].notna()]
    if joined.empty:
        return pd.DataFrame()
    rank = {m: i for i, m in enumerate(methods)}
    table = semantic_table(joined.sort_values("method", key=lambda s: s.map(rank), kind="stable"))
    answers = rows.groupby("method")["id"].nunique()
    table.insert(1, "answers", [int(answers[m]) for m in table["method"]])
    calibrations = load_calibrations(settings=settings) if calibrations is None else calibrations
    table["judge_calibration"] = [
        judge_cell(joined[joined["method"] == m], calibrations) for m in table["method"]
    ]
    return table.rename(columns={"n": "judged"})
