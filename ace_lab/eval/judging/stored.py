"""Stored pairwise judging of a study's answers: judge once, tabulate forever without the LLM.

``judge_study(study, a, b)`` judges method ``a``'s answer against method ``b``'s
(:func:`ace_lab.eval.judging.judge.judge_pair`: both orders, a win only when both agree) for every
question both methods answered in ``<results_dir>/<study>/``, appending one JSON line per
question to ``<results_dir>/<study>/judge/<a>__vs__<b>.jsonl`` the moment it is judged. A
rerun skips the ids already in the file, so judging resumes; a question whose judge call
raised is not written (it is logged and counted) and is retried by the next run. A verdict
whose output fell back to a tie (unparseable judge output, recorded in ``fallbacks``) *is*
written: it is the protocol's outcome, not a crash.

``load_verdicts`` reads the verdicts back and ``preference_table`` turns them into ACE's
pairwise tables (win rates per criterion) for the notebooks, without any LLM call; a pair
without verdicts is a row that names the command which makes them.
"""

from __future__ import annotations

import json
import logging
import re
import shlex
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from ace_lab.config import Settings, load_settings
from ace_lab.eval.judging.calibration import Calibrations, cells, load_calibrations
from ace_lab.eval.judging.identity import JudgeIdentity, prompt_fingerprint
from ace_lab.eval.judging.judge import CRITERIA, JudgeVerdict, PairVerdict, judge_pair, win_rates
from ace_lab.eval.studies.study import (
    MANIFEST,
    load_results,
    read_jsonl,
    results_path,
    safe_name,
    study_dir,
)
from ace_lab.llm import LLM, get_llm
from ace_lab.llm.inflight import as_finished, default_concurrency

log = logging.getLogger(__name__)

#: Folder of a study's verdict files.
JUDGE_DIR = "judge"
#: Criterion order of the preference tables: Overall first, as in the ACE / LightRAG tables.
TABLE_CRITERIA: tuple[str, ...] = ("overall", *(c for c in CRITERIA if c != "overall"))
#: The columns notebook 06 shows of :func:`preference_table` (the export keeps every column).
PREFERENCE_VIEW = [
    "a",
    "b",
    "criterion",
    "n",
    "wins_a",
    "wins_b",
    "ties",
    "win_rate_a [95% CI]",
    "first_shown",
    "judge_calibration",
    "note",
]
#: The calibrated metric behind these tables (:mod:`ace_lab.eval.judging.calibration`).
PAIRWISE = "pairwise_preference"
_SLICE_ID = re.compile(r"^(?P<dataset>.+)-n(?P<n>\d+)-s(?P<seed>\d+)$")


# ---------------------------------------------------------------------------------- names
def verdicts_path(study: str, a: str, b: str, settings: Settings | None = None) -> Path:
    """``<results_dir>/<study>/judge/<safe a>__vs__<safe b>.jsonl``."""
    return study_dir(study, settings) / JUDGE_DIR / f"{safe_name(a)}__vs__{safe_name(b)}.jsonl"


def judge_command(study: str, a: str, b: str) -> str:
    """The ``ace-lab judge`` command that writes the verdicts of ``a`` vs ``b``."""
    parts = ["--study", study, "--a", a, "--b", b]
    return "ace-lab judge " + " ".join(shlex.quote(p) for p in parts)


def run_command(
    methods: Iterable[str], study: str, settings: Settings | None = None, *, n: int = 20
) -> str:
    """The ``ace-lab run`` command that produces ``methods``' results in ``study``.

    Dataset, slice size and seed come from the study's manifest when it exists, else from the
    study name read as a slice id (``<dataset>-n<N>-s<seed>``, the default study name); a
    study named otherwise gets ``--study`` and a ``<DATASET>`` placeholder.
    """
    manifest_path = study_dir(study, settings) / MANIFEST
    info: dict[str, Any] = {}
    if manifest_path.is_file():
        try:
            info = json.loads(manifest_path.read_text(encoding="utf-8"))
        except ValueError:
            info = {}
    if not info.get("dataset") and (match := _SLICE_ID.match(study)):
        info = {"dataset": match["dataset"], "n": int(match["n"]), "seed": int(match["seed"])}
    dataset = info.get("dataset") or "<DATASET>"
    size = int(info.get("n") or n)
    seed = int(info.get("seed") or 0)
    parts = ["ace-lab run --methods", *(shlex.quote(m) for m in methods)]
    parts += ["--dataset", dataset, "--n", str(size)]
    if seed:
        parts += ["--seed", str(seed)]
    if study != f"{dataset}-n{size}-s{seed}":
        parts += ["--study", shlex.quote(study)]
    # Sets without gold answers are judged pairwise, so they are answered as summaries.
    if info.get("task") == "qfs" or (not info.get("task") and dataset.startswith("ultradomain")):
        parts += ["--task", "qfs"]
    return " ".join(parts)


# ---------------------------------------------------------------------------------- judge
def _shared_answers(df: pd.DataFrame, a: str, b: str) -> list[dict[str, Any]]:
    """Questions both methods answered, in ``a``'s slice order, with both answers."""
    rows = {}
    for method in (a, b):
        sub = df[df["method"] == method].drop_duplicates("id", keep="last")
        rows[method] = {rec["id"]: rec for rec in sub.to_dict("records")}
    out = []
    for index, (qid, rec_a) in enumerate(rows[a].items()):
        rec_b = rows[b].get(qid)
        if rec_b is None:
            continue
        position = rec_a.get("position")
        out.append(
            {
                "id": qid,
                "position": index if position is None or pd.isna(position) else int(position),
                "question": str(rec_a.get("question") or ""),
                "answer_a": str(rec_a.get("answer") or ""),
                "answer_b": str(rec_b.get("answer") or ""),
            }
        )
    return out


def _verdict_record(
    pair: dict[str, Any], a: str, b: str, verdict: PairVerdict, llm: LLM
) -> dict[str, Any]:
    return {
        "id": pair["id"],
        "position": pair["position"],
        "question": pair["question"],
        "a": a,
        "b": b,
        "outcomes": dict(verdict.outcomes),
        "fallbacks": list(verdict.fallbacks),
        "a_first": verdict.a_first.model_dump(),
        "b_first": verdict.b_first.model_dump(),
        "judge_model": llm.model,
        "judge_model_identity": llm.model_identity,
        "judge_prompt": prompt_fingerprint(PAIRWISE),
        "time": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def judge_study(
    study: str,
    a: str,
    b: str,
    *,
    settings: Settings | None = None,
    llm: LLM | None = None,
    limit: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Judge ``a`` vs ``b`` on the questions both answered; return all stored verdicts.

    ``limit`` judges only the first ``limit`` shared questions (slice order). Ids already in
    the verdict file are skipped; failed judge calls are counted in ``df.attrs["errors"]``
    and retried by the next call. The LLM is only created when something is left to judge.
    """
    if a == b:
        raise ValueError(f"judge two different methods, not {a!r} against itself")
    settings = settings or load_settings()
    pairs = _shared_answers(load_results(study, settings, methods=[a, b]), a, b)
    if limit is not None:
        pairs = pairs[:limit]
    path = verdicts_path(study, a, b, settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = {rec["id"] for rec in read_jsonl(path, repair_tail=True)}
    todo = [p for p in pairs if p["id"] not in done]
    failures = 0
    if todo:
        llm = llm or get_llm(settings)
        bar = tqdm(total=len(todo), desc=f"{a} vs {b}", disable=not progress, unit="q")
        try:
            with path.open("a", encoding="utf-8") as out:
                # Pairs in flight together (a remote endpoint's setting; 1 for the local
                # server); each verdict is written here, by this thread, as it comes.
                judged = as_finished(
                    lambda p: judge_pair(llm, p["question"], p["answer_a"], p["answer_b"]),
                    todo,
                    default_concurrency(llm.settings),
                )
                for pair, verdict, exc in judged:
                    if verdict is None:
                        failures += 1
                        log.warning("judge %s vs %s: question %s failed: %r", a, b, pair["id"], exc)
                    else:
                        record = _verdict_record(pair, a, b, verdict, llm)
                        out.write(json.dumps(record, ensure_ascii=False) + "\n")
                        out.flush()
                    bar.update(1)
        finally:
            bar.close()
    if failures:
        log.warning(
            "%d judge call(s) failed; rerun `%s` to retry", failures, judge_command(study, a, b)
        )
    frame = load_verdicts(study, a, b, settings)
    frame.attrs["errors"] = failures
    return frame


# ----------------------------------------------------------------------------------- read
def load_verdicts(study: str, a: str, b: str, settings: Settings | None = None) -> pd.DataFrame:
    """The stored verdicts of ``a`` vs ``b``, one row per question in slice order.

    Columns: ``id, position, question, a, b``, one outcome column per criterion (``"a"``,
    ``"b"`` or ``"tie"``), ``fallbacks``, ``judge_model``, ``judge_model_identity``,
    ``judge_prompt`` (the prompt's fingerprint; None on a verdict that did not record it), ``time``
    and the raw ``a_first`` / ``b_first`` verdicts. A missing file raises FileNotFoundError
    naming the command that writes it.
    """
    path = verdicts_path(study, a, b, settings)
    if not path.is_file():
        raise FileNotFoundError(f"no verdicts at {path}; run `{judge_command(study, a, b)}`")
    rows = []
    for rec in read_jsonl(path):
        outcomes = rec.get("outcomes") or {}
        rows.append(
            {
                **{k: rec.get(k) for k in ("id", "position", "question", "a", "b")},
                **{c: outcomes.get(c, "tie") for c in CRITERIA},
                "fallbacks": list(rec.get("fallbacks") or []),
                **{
                    k: rec.get(k)
                    for k in ("judge_model", "judge_model_identity", "judge_prompt", "time")
                },
                "a_first": rec.get("a_first"),
                "b_first": rec.get("b_first"),
            }
        )
    columns = ["id", "position", "question", "a", "b", *CRITERIA, "fallbacks"]
    columns += ["judge_model", "judge_model_identity", "judge_prompt", "time"]
    columns += ["a_first", "b_first"]
    frame = pd.DataFrame(rows, columns=columns).drop_duplicates("id", keep="last")
    return frame.sort_values("position", kind="stable").reset_index(drop=True)


def verdicts_of(frame: pd.DataFrame) -> list[PairVerdict]:
    """``PairVerdict`` objects from a :func:`load_verdicts` frame (for ``win_rates``)."""
    out = []
    for row in frame.to_dict("records"):
        out.append(
            PairVerdict(
                query=str(row["question"] or ""),
                outcomes={c: row[c] for c in CRITERIA},
                a_first=JudgeVerdict.model_validate(row["a_first"]),
                b_first=JudgeVerdict.model_validate(row["b_first"]),
                fallbacks=tuple(row["fallbacks"]),
            )
        )
    return out


def _missing_row(a: str, b: str, note: str) -> dict[str, Any]:
    return {
        "a": a,
        "b": b,
        "criterion": "",
        "n": 0,
        "wins_a": 0,
        "wins_b": 0,
        "ties": 0,
        "fallbacks": 0,
        "win_rate_a": float("nan"),
        "win_rate_low": float("nan"),
        "win_rate_high": float("nan"),
        "win_rate_a [95% CI]": "",
        "win_rate_b": float("nan"),
        "first_shown": float("nan"),
        "judge_model": "",
        "judge_calibration": "",
        "note": note,
    }


def _shared_count(study: str, a: str, b: str, settings: Settings | None) -> int | None:
    try:
        return len(_shared_answers(load_results(study, settings, methods=[a, b]), a, b))
    except (FileNotFoundError, ValueError, KeyError):
        return None


def preference_table(
    study: str,
    pairs: Sequence[Sequence[str]],
    settings: Settings | None = None,
    calibrations: Calibrations | None = None,
) -> pd.DataFrame:
    """Win rates of ``a`` over ``b`` per criterion (Overall first) for each pair, with n.

    One row per (pair, criterion) from :func:`ace_lab.eval.judging.judge.win_rates` (a tie is half a
    win for each side; ``win_rate_b = 1 - win_rate_a``). A pair without verdicts is a single
    row whose ``note`` says which command makes them (``ace-lab run`` first when the study
    lacks either method's answers); a partly judged pair notes how many questions are left.
    ``judge_calibration`` is the calibration accuracy on pairwise preference and n of the exact
    judge (model, server build and prompt) that gave the verdicts, marked "judge
    uninformative" below the threshold and "judge not calibrated" where that judge never was
    (``calibrations``: the committed ones by default; :mod:`ace_lab.eval.judging.calibration`).
    """
    calibrations = load_calibrations(settings=settings) if calibrations is None else calibrations
    rows: list[dict[str, Any]] = []
    for pair in pairs:
        a, b = (str(m) for m in pair)
        shared = _shared_count(study, a, b, settings)
        command = judge_command(study, a, b)
        if shared is None:
            missing = [m for m in (a, b) if not results_path(study, m, settings).is_file()]
            prefix = f"`{run_command(missing or [a, b], study, settings)}`, then "
        else:
            prefix = ""
        path = verdicts_path(study, a, b, settings)
        frame = load_verdicts(study, a, b, settings) if path.is_file() else None
        if frame is None or frame.empty:
            rows.append(_missing_row(a, b, f"no verdicts: run {prefix}`{command}`"))
            continue
        rates = win_rates(verdicts_of(frame))
        models = sorted({str(m) for m in frame["judge_model"].dropna()})
        note = ""
        if shared is not None and len(frame) < shared:
            note = f"{len(frame)} of {shared} shared questions judged; `{command}` resumes"
        for criterion in TABLE_CRITERIA:
            rate = rates.loc[criterion]
            rows.append(
                {
                    "a": a,
                    "b": b,
                    "criterion": criterion.capitalize(),
                    **{k: int(rate[k]) for k in ("n", "wins_a", "wins_b", "ties", "fallbacks")},
                    "win_rate_a": float(rate["win_rate_a"]),
                    "win_rate_low": float(rate["win_rate_low"]),
                    "win_rate_high": float(rate["win_rate_high"]),
                    "win_rate_a [95% CI]": (
                        f"{rate['win_rate_a']:.3f} "
                        f"[{rate['win_rate_low']:.3f}, {rate['win_rate_high']:.3f}]"
                    ),
                    "win_rate_b": 1.0 - float(rate["win_rate_a"]),
                    "first_shown": float(rate["first_shown"]),
                    "judge_model": ", ".join(models),
                    "judge_calibration": cells(PAIRWISE, calibrations, identities(frame)),
                    "note": note,
                }
            )
    return pd.DataFrame(rows, columns=list(_missing_row("", "", "")))


def identities(frame: pd.DataFrame) -> Counter[JudgeIdentity]:
    """How many of a :func:`load_verdicts` frame's verdicts each judge identity gave."""
    found: Counter[JudgeIdentity] = Counter()
    for model, prompt in zip(frame["judge_model_identity"], frame["judge_prompt"], strict=True):
        found[JudgeIdentity(model if isinstance(model, str) else "", prompt or "")] += 1
    return found


def preference_by_variant(preferences: pd.DataFrame, label: str = "variant (b)") -> pd.DataFrame:
    """A :func:`preference_table` of one ``a`` against several ``b`` as one row per ``b``:
    n, the win rate of ``a`` per criterion, and ``first_shown`` averaged over criteria (the
    judge's position bias) and the judge's calibration. Pairs without verdicts are left out;
    empty when none has any.
    """
    judged = preferences[preferences["n"] > 0]
    if judged.empty:
        return pd.DataFrame()
    wide = judged.pivot_table(
        index="b", columns="criterion", values="win_rate_a", sort=False
    ).reset_index()
    wide.insert(1, "n", judged.groupby("b", sort=False)["n"].max().to_numpy())
    wide["first_shown"] = judged.groupby("b", sort=False)["first_shown"].mean().to_numpy()
    if "judge_calibration" in judged:
        calibration = judged.groupby("b", sort=False)["judge_calibration"].first()
        wide["judge_calibration"] = calibration.to_numpy()
    return wide.rename(columns={"b": label})


def describe_preferences(preferences: pd.DataFrame) -> None:
    """Print the judge model(s) behind a :func:`preference_table` and its notes, once each."""
    models = sorted({m for m in preferences["judge_model"] if m})
    print("judge model:", ", ".join(models) or "none yet")
    for note in dict.fromkeys(n for n in preferences["note"] if n):
        print("note:", note)
