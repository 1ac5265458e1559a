"""Where a claim's values come from: per-question metrics of two runs, paired and pooled.

A method's claims (``<report>.claims``) name studies (``results/<study>/``), runs and a metric;
these functions read the records (:func:`~ace_lab.eval.studies.study.load_results`, which
back-fills the evidence metrics of older records, and joins each answer's stored
semantic-equivalence verdict as the metric :data:`SEMANTIC`), keep the questions both runs have
in each study, and pool them over studies (each question one unit; a study without both runs is
left out and named in the note; a judged metric's note gives its judge's calibration).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ace_lab.config import load_settings
from ace_lab.eval.judging.semantic import judge_cell, load_semantic, with_verdicts
from ace_lab.eval.reporting.evidence import metric_values
from ace_lab.eval.reporting.verdicts import ClaimValues
from ace_lab.eval.studies.reread import reread_study
from ace_lab.eval.studies.runner import EVIDENCE_SUFFIX
from ace_lab.eval.studies.study import load_results
from ace_lab.viz.names import dataset_name

#: A metric: a record column, or a function of one run's records giving a value per question id.
Metric = str | Callable[[pd.DataFrame], pd.Series]
#: The metric that is the semantic-equivalence judge's verdict on each answer (1 / 0; ``ace-lab
#: semantic`` stores them; an answer without one is left out).
SEMANTIC = "semantic"


def study_frame(results_dir: Path, study: str) -> pd.DataFrame:
    """Every record of ``study`` under ``results_dir``, each with the stored verdict on its
    answer (:data:`SEMANTIC`, NaN where none); empty when the study is not there."""
    if not (Path(results_dir) / study).is_dir():
        return pd.DataFrame()
    settings = replace(load_settings(), results_dir=Path(results_dir))
    return with_verdicts(load_results(study, settings), load_semantic(study, settings))


def judge_note(results_dir: Path, judged: Sequence[pd.DataFrame]) -> str:
    """The note of a judged metric: the calibration of the judges behind ``judged``'s verdicts
    (the committed calibrations under ``results_dir``)."""
    settings = replace(load_settings(), results_dir=Path(results_dir))
    return "judge calibration: " + judge_cell(pd.concat(judged), settings=settings)


def run_values(frame: pd.DataFrame, method: str, metric: Metric) -> pd.Series:
    """``metric`` per question id of ``method``'s records in ``frame`` (empty without them)."""
    if frame.empty or "method" not in frame:
        return pd.Series(dtype=float)
    records = frame[frame["method"] == method].drop_duplicates("id", keep="last")
    if records.empty:
        return pd.Series(dtype=float)
    values = metric(records) if callable(metric) else metric_values(records, metric)
    return pd.to_numeric(values, errors="coerce").dropna()


def slice_label(study: str) -> str:
    """A study's slice as a table shows it: its data set's display name."""
    return dataset_name(study.split("-n", 1)[0])


def paired(
    results_dir: Path,
    studies: Sequence[str],
    a: str,
    b: str | Sequence[str],
    metric: Metric,
    *,
    b_metric: Metric | None = None,
) -> ClaimValues | None:
    """A's and B's values on the questions both have, pooled over ``studies``. ``b`` may be
    several runs: per study the one with the highest mean on the shared questions is B (the
    best fixed policy, chosen on the same questions — which favours B). None without pairs."""
    a_parts, b_parts, used, missing, chosen, judged = [], [], [], [], [], []
    for study in studies:
        frame = study_frame(results_dir, study)
        va = run_values(frame, a, metric)
        options = [b] if isinstance(b, str) else list(b)
        best: tuple[float, str, pd.Series, list[str]] | None = None
        for option in options:
            vb = run_values(frame, option, b_metric or metric)
            shared = [i for i in va.index if i in vb.index]
            if shared and (best is None or vb.loc[shared].mean() > best[0]):
                best = (float(vb.loc[shared].mean()), option, vb, shared)
        if best is None:
            missing.append(slice_label(study))
            continue
        _, option, vb, shared = best
        a_parts.append(va.loc[shared].to_numpy(float))
        b_parts.append(vb.loc[shared].to_numpy(float))
        used.append(slice_label(study))
        chosen.append(f"{slice_label(study)}: {option}")
        judged.append(frame[frame["method"].isin([a, option]) & frame["id"].isin(shared)])
    if not used:
        return None
    notes = []
    if not isinstance(b, str):
        notes.append("B per slice: " + "; ".join(chosen))
    if missing:
        notes.append("no records on " + ", ".join(missing))
    if SEMANTIC in (metric, b_metric):
        notes.append(judge_note(results_dir, judged))
    return ClaimValues(
        np.concatenate(a_parts), np.concatenate(b_parts), tuple(used), "; ".join(notes)
    )


def rate(results_dir: Path, studies: Sequence[str], a: str, metric: Metric) -> ClaimValues | None:
    """A's 0/1 values of ``metric`` (a function may leave questions out: the ones it is not
    defined on), pooled over ``studies``; None without any."""
    parts, used, missing = [], [], []
    for study in studies:
        values = run_values(study_frame(results_dir, study), a, metric)
        if values.empty:
            missing.append(slice_label(study))
            continue
        parts.append(values.to_numpy(float))
        used.append(slice_label(study))
    if not used:
        return None
    note = "no records on " + ", ".join(missing) if missing else ""
    return ClaimValues(np.concatenate(parts), None, tuple(used), note)


#: The committed multi-hop QA slices' studies (answered runs); claims pool over them.
MULTIHOP_STUDIES = (
    "hotpotqa_dev_sample200-n20-s0",
    "2wikimultihopqa_hipporag1000-n20-s0",
    "musique_dev_sample292-n10-s0",
)
#: The pooled-corpus study standing in for a committed slice's study where its data set has
#: one (:mod:`ace_lab.data.pooled`: 100 questions searched against the whole pooled corpus of
#: HippoRAG's sample; 2Wiki has none). A claim measured on these is the same claim where a
#: question's passages hide among a thousand others.
POOLED_STUDIES = {
    "hotpotqa_dev_sample200-n20-s0": "hotpotqa_train_sample100_hipporag_pooled-n100-s0",
    "musique_dev_sample292-n10-s0": "musique_train_sample100_hipporag_pooled-n100-s0",
}


#: The reader that re-answers the pooled evidence studies (``ace-lab reread``): one short,
#: grammar-bound reader for every method's stored context.
POOLED_READER = "short"


def evidence_studies_of(studies: Sequence[str]) -> tuple[str, ...]:
    """The evidence-only study of each answered study (``<study>-evidence``)."""
    return tuple(f"{study}{EVIDENCE_SUFFIX}" for study in studies)


def pooled_studies_of(studies: Sequence[str]) -> tuple[str, ...]:
    """The pooled-corpus counterpart of each study that has one (:data:`POOLED_STUDIES`; an
    evidence study's is the counterpart's evidence study), the rest left out."""
    found = []
    for study in studies:
        base = study.removesuffix(EVIDENCE_SUFFIX)
        if base in POOLED_STUDIES:
            found.append(POOLED_STUDIES[base] + study[len(base) :])
    return tuple(found)


def answered_pooled_studies(studies: Sequence[str]) -> tuple[str, ...]:
    """The answered runs on the pooled corpora standing for ``studies``: each pooled evidence
    study re-answered by :data:`POOLED_READER` (``<pooled>-evidence-reread-short``)."""
    pooled = pooled_studies_of(evidence_studies_of(studies))
    return tuple(reread_study(study, POOLED_READER) for study in pooled)


@dataclass(frozen=True)
class StudyValues:
    """A claim's ``values``: :func:`paired` (``b`` given) or :func:`rate` (``b`` None) over
    ``studies`` under the results folder it is called with; :meth:`pooled` is the same
    comparison on the studies' pooled-corpus counterparts."""

    studies: tuple[str, ...]
    a: str
    b: str | tuple[str, ...] | None
    metric: Metric

    def __call__(self, results_dir: Path) -> ClaimValues | None:
        if self.b is None:
            return rate(results_dir, self.studies, self.a, self.metric)
        return paired(results_dir, self.studies, self.a, self.b, self.metric)

    def pooled(self) -> StudyValues | None:
        """The comparison on the pooled corpora (None: no study here has one)."""
        studies = pooled_studies_of(self.studies)
        return replace(self, studies=studies) if studies else None


def paired_values(
    studies: Sequence[str], a: str, b: str | Sequence[str], metric: Metric
) -> StudyValues:
    """A claim's ``values``: :func:`paired` over ``studies`` under the results folder given."""
    return StudyValues(tuple(studies), a, b if isinstance(b, str) else tuple(b), metric)


def rate_values(studies: Sequence[str], a: str, metric: Metric) -> StudyValues:
    """A claim's ``values``: :func:`rate` over ``studies`` under the results folder given."""
    return StudyValues(tuple(studies), a, None, metric)
