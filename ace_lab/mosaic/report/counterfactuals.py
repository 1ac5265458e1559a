"""§7.5's counterfactual table: per control flipped, how often and how much the evidence (and,
where computed, the answer) changes — from a study's MOSAIC records and its committed graph.

:func:`counterfactual_rows` replays each record's policy (:mod:`ace_lab.mosaic.counterfactual`):
first unchanged — the ``recorded policy (replayed)`` row checks the replay reproduces the
record's context — then with each flip. Evidence recall is the records' own: passage recall
(supporting passages among the passages rendered) and provenance recall (among every item's
source passages), :mod:`ace_lab.eval.metrics`. No model is called unless answers are asked
for; an answer whose context did not change is the record's own.

:func:`counterfactual_table` has one row per flip: ``n`` questions it applies to, the share
whose evidence changed, the mean paired Δ passage recall (flipped − recorded) with its bootstrap
interval and sign-flip p (:func:`~ace_lab.eval.statistics.paired_bootstrap`), the mean Δ
provenance recall and Δ context tokens, and — over the ``answers`` questions whose evidence
changed and whose answer under the flip was computed (a context that did not change keeps its
answer) — the share whose answer changed and the mean ΔEM and ΔF1; empty where none was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ace_lab.config import Settings
from ace_lab.eval.metrics import exact_match, f1_score, passage_recall, provenance_recall
from ace_lab.eval.statistics import paired_bootstrap
from ace_lab.eval.studies.study import load_results, read_manifest, study_dir
from ace_lab.mosaic.counterfactual import FLIPS, Flip, Replay, Replayer
from ace_lab.mosaic.method import MosaicConfig
from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.report.policies import policy_of, records_of
from ace_lab.registry import spec
from ace_lab.retrieval import RetrievalGraph

#: The table's file stem in a study folder.
COUNTERFACTUALS = "05_counterfactuals"
#: The row of the recorded policy, replayed unchanged (the replay's own check).
RECORDED = "recorded policy (replayed)"
#: Answers a replay: (question, replay) → the answer, or None where it was not computed.
Answerer = Callable[[str, Replay], str | None]
TABLE_COLUMNS = [
    "flip",
    "control",
    "n",
    "evidence_changed",
    "d_passage_recall",
    "low",
    "high",
    "p",
    "d_provenance_recall",
    "d_context_tokens",
    "answers",
    "answer_changed",
    "d_em",
    "d_f1",
]
#: The columns a flip is compared on with the recorded policy (``base_<column>``).
COMPARED = ("passage_recall", "provenance_recall", "context_tokens", "answer", "em", "f1")


def _scores(answer: str | None, golds: Sequence[str]) -> tuple[float | None, float | None]:
    if answer is None or not golds:
        return None, None
    return exact_match(answer, golds), f1_score(answer, golds)


def _row(rec: Mapping[str, Any], replay: Replay, base: Replay, answer: str | None) -> dict:
    golds, supporting = list(rec.get("gold") or []), list(rec.get("supporting_ids") or [])
    em, f1 = _scores(answer, golds)
    return {
        "id": rec.get("id"),
        "flip": replay.flip or RECORDED,
        "control": replay.control,
        "label": replay.label,
        "evidence_changed": replay.evidence_ids != base.evidence_ids,
        "passage_recall": passage_recall(replay.passage_ids, supporting),
        "provenance_recall": provenance_recall(replay.source_ids, supporting),
        "context_tokens": replay.context_tokens,
        "answer": answer,
        "em": em,
        "f1": f1,
    }


def counterfactual_rows(
    records: Any,
    replayer: Replayer,
    flips: Sequence[Flip] = FLIPS,
    answer: Answerer | None = None,
    method: str = "mosaic",
) -> pd.DataFrame:
    """One row per question × policy (the recorded one first, then each flip that applies)
    with the replay's evidence recall, context tokens and, where ``answer`` computed it, its
    answer and EM/F1; ``base_*`` columns are the recorded policy's (its record's answer)."""
    rows = []
    for rec in records_of(records):
        controls = policy_of(rec)
        if rec.get("method") != method or not controls:
            continue
        policy, _ = ExplorationPolicy.clamp({k: v for k, v in controls.items() if k != "label"})
        query = str(rec["question"])
        base = replayer.replay(query, policy)
        if base is None:  # cannot happen: the recorded policy always replays
            continue
        reproduced = base.evidence_ids == tuple(rec.get("context_ids") or ())
        replayed = _row(rec, base, base, rec.get("answer") if reproduced else None)
        recorded = {k: rec.get(k) for k in COMPARED}
        # the replay against the record, then each flip against the replay (same code)
        rows.append(replayed | {"evidence_changed": not reproduced} | _based(recorded))
        unflipped = {k: replayed[k] for k in COMPARED} | {
            k: rec.get(k) for k in ("answer", "em", "f1")
        }
        for flip in flips:
            replay = replayer.replay(query, policy, flip)
            if replay is None:
                continue
            same = replay.evidence_ids == base.evidence_ids and reproduced
            text = rec.get("answer") if same else (answer(query, replay) if answer else None)
            rows.append(_row(rec, replay, base, text) | _based(unflipped))
    return pd.DataFrame(rows)


def _based(values: Mapping[str, Any]) -> dict[str, Any]:
    return {f"base_{k}": values[k] for k in COMPARED}


def _mean_diff(group: pd.DataFrame, column: str) -> float | None:
    pairs = group[[column, f"base_{column}"]].dropna().astype(float)
    if pairs.empty:
        return None
    return round(float((pairs[column] - pairs[f"base_{column}"]).mean()), 4)


def _flip_row(name: str, group: pd.DataFrame) -> dict[str, Any]:
    pairs = group[["passage_recall", "base_passage_recall"]].dropna().astype(float)
    interval = paired_bootstrap(pairs["passage_recall"], pairs["base_passage_recall"])
    # an unchanged context gets the same prompt, hence the same answer: only contexts that
    # changed and were answered count
    computed = group["answer"].notna() & group["base_answer"].notna()
    answered = group[computed & group["evidence_changed"].astype(bool)]
    changed = answered["answer"].astype(str) != answered["base_answer"].astype(str)
    return {
        "flip": name,
        "control": group["control"].iloc[0] or "-",
        "n": len(group),
        "evidence_changed": round(float(group["evidence_changed"].mean()), 4),
        "d_passage_recall": round(interval.mean_diff, 4),
        "low": round(interval.low, 4),
        "high": round(interval.high, 4),
        "p": round(interval.p_value, 4),
        "d_provenance_recall": _mean_diff(group, "provenance_recall"),
        "d_context_tokens": _mean_diff(group, "context_tokens"),
        "answers": len(answered),
        "answer_changed": round(float(changed.mean()), 4) if len(answered) else None,
        "d_em": _mean_diff(answered, "em") if len(answered) else None,
        "d_f1": _mean_diff(answered, "f1") if len(answered) else None,
    }


def counterfactual_table(rows: pd.DataFrame, flips: Sequence[Flip] = FLIPS) -> pd.DataFrame:
    """One row per flip (the recorded policy's replay first): see the module docstring."""
    if rows.empty:
        return pd.DataFrame(columns=TABLE_COLUMNS)
    order = [RECORDED, *(f.name for f in flips)]
    groups = [(name, rows[rows["flip"] == name]) for name in order]
    return pd.DataFrame(
        [_flip_row(name, group) for name, group in groups if len(group)], columns=TABLE_COLUMNS
    )


def study_rows(
    study: str,
    settings: Settings | None = None,
    *,
    answer: Callable[[Replayer, str], Answerer] | None = None,
    method: str = "mosaic",
) -> pd.DataFrame:
    """:func:`counterfactual_rows` of ``method``'s records in ``study`` over the graph they
    were answered on (the study's slice, the method's family, the manifest's graph model).
    ``answer`` makes the answerer from the replayer and the study's task (None: no answers)."""
    manifest = read_manifest(study, settings)
    entry = manifest.get("methods", {}).get(method, {})
    found = spec(method)
    graph = RetrievalGraph.load(
        manifest["dataset"],
        int(manifest["n"]),
        found.family,
        model=entry.get("graph_model") or manifest.get("graph_model"),
        seed=int(manifest.get("seed") or 0),
        settings=settings,
    )
    replayer = Replayer(graph, None, found.config(MosaicConfig))
    answerer = answer(replayer, str(manifest.get("task") or "qa")) if answer else None
    return counterfactual_rows(load_results(study, settings, [method]), replayer, answer=answerer)


def mosaic_studies(settings: Settings | None = None, method: str = "mosaic") -> list[str]:
    """The study folders holding ``method``'s records, sorted."""
    root = study_dir("", settings)
    return sorted(p.parent.name for p in Path(root).glob(f"*/{method}.jsonl"))


def read_table(directory: Path | str, stem: str) -> pd.DataFrame | None:
    """The committed table ``<directory>/<stem>.csv`` (None when it is not there), for a
    notebook that shows a table without recomputing it."""
    path = Path(directory) / f"{stem}.csv"
    return pd.read_csv(path) if path.is_file() else None
