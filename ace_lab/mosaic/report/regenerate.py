"""MOSAIC's committed tables, remade from the studies' records: ``python -m ace_lab.mosaic.report``.

- ``results/<study>/05_counterfactuals.{csv,md,tex}`` for every study with ``mosaic`` records
  (:mod:`ace_lab.mosaic.report.counterfactuals`): retrieval replayed over the study's committed
  graph, no model call. Answers under a flip are added only from the study's response archive
  ``data/responses/05_counterfactuals_<study>.jsonl`` when it exists (replayed, never sent to a
  model), or with ``--answers model``, which calls the model for what the cache and archive lack
  and records the responses there (an LLM job);
- ``results/05_policy_diversity.{csv,md,tex}``: distinct control combinations per slice
  (:func:`~ace_lab.mosaic.report.policies.policy_diversity`).

``make reproduce`` runs it; ``tests/committed/test_results.py`` remakes both the same way.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Literal, cast

import pandas as pd

from ace_lab.config import Settings, load_settings
from ace_lab.eval.reporting.export import export_table
from ace_lab.eval.studies.study import load_results, read_manifest, results_path
from ace_lab.llm import LLM, LLMError, get_llm
from ace_lab.llm.replay import REPLAY_ONLY_ENV, replaying
from ace_lab.methods.generate import Task
from ace_lab.mosaic.counterfactual import Replay, Replayer
from ace_lab.mosaic.report.counterfactuals import (
    COUNTERFACTUALS,
    Answerer,
    counterfactual_table,
    mosaic_studies,
    study_rows,
)
from ace_lab.mosaic.report.policies import ANALYZERS, POLICY_DIVERSITY, policy_diversity

AnswerMode = Literal["archive", "model", "off"]
RESPONSES = Path(__file__).resolve().parents[3] / "data" / "responses"


def archive_path(study: str) -> Path:
    """Where the answers under the flips of ``study`` are archived."""
    return RESPONSES / f"{COUNTERFACTUALS}_{study}.jsonl"


@contextmanager
def _model_calls(allowed: bool) -> Iterator[None]:
    """Forbid model calls in replaying blocks (``REPLAY_ONLY``) unless ``allowed``."""
    before = os.environ.get(REPLAY_ONLY_ENV)
    if not allowed:
        os.environ[REPLAY_ONLY_ENV] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(REPLAY_ONLY_ENV, None)
        else:
            os.environ[REPLAY_ONLY_ENV] = before


def answerer(llm: LLM, archive: Path, call_model: bool) -> Callable[[Replayer, str], Answerer]:
    """Answers under a flip: from the cache and ``archive`` (and the model if ``call_model``,
    recording into ``archive``); None for a question the model was not allowed to answer."""

    def make(replayer: Replayer, task: str) -> Answerer:
        replayer.llm = llm

        def answer(query: str, replay: Replay) -> str | None:
            try:
                with _model_calls(call_model), replaying(llm, archive, update=call_model):
                    return replayer.answer(query, replay, cast(Task, task))
            except LLMError:
                return None

        return answer

    return make


def counterfactual_tables(
    settings: Settings | None = None,
    studies: Sequence[str] | None = None,
    answers: AnswerMode = "archive",
    tier: str | None = None,
) -> dict[str, pd.DataFrame]:
    """Table stem (relative to results/) → table: each of ``studies``' counterfactuals and the
    policy diversity of every study with ``mosaic`` records. ``answers``: ``archive`` (only where
    the study's archive exists, no model call), ``model`` (cache, archive, then the model) or
    ``off``."""
    settings = settings or load_settings()
    every = mosaic_studies(settings)
    studies = list(studies) if studies is not None else every
    out: dict[str, pd.DataFrame] = {}
    for study in studies:
        archive = archive_path(study)
        make = None
        if answers == "model" or (answers == "archive" and archive.is_file()):
            llm = answering_llm(study, settings, answers == "model", tier)
            make = answerer(llm, archive, answers == "model")
        rows = study_rows(study, settings, answer=make)
        out[f"{study}/{COUNTERFACTUALS}"] = counterfactual_table(rows)
    # Diversity is pooled over every slice, so answering one study leaves the other rows be.
    slices = {study: _analyzer_records(study, settings) for study in every}
    out[POLICY_DIVERSITY] = policy_diversity(slices)
    return out


def answering_llm(study: str, settings: Settings, call_model: bool, tier: str | None = None) -> LLM:
    """The model that answers under ``study``'s flips. Replaying (no model call), one keyed as
    the model that answered the study's ``mosaic`` records (the manifest's identity), so the
    archive replays on any machine whatever its local build; calling the model, the configured
    one, with a warning when it is not the records' model (an answer change then mixes the flip
    with another model's or build's decoding)."""
    recorded = read_manifest(study, settings)["methods"].get("mosaic", {}).get("model_identity")
    if not call_model and recorded:
        return LLM(settings, model_identity=recorded)
    llm = get_llm(load_settings(tier=tier) if tier else settings)
    if recorded and llm.model_identity != recorded:
        print(
            f"warning: {study}: answering with {llm.model_identity}, not {recorded}, the model "
            "of its mosaic records",
            file=sys.stderr,
        )
    return llm


def _analyzer_records(study: str, settings: Settings) -> pd.DataFrame:
    """``study``'s records of each analyzer of :data:`ANALYZERS` that it ran."""
    ran = [m for m in ANALYZERS if results_path(study, m, settings).is_file()]
    return load_results(study, settings, ran)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ace_lab.mosaic.report", description=__doc__)
    parser.add_argument(
        "--study", action="append", help="a study folder (default: every one with mosaic records)"
    )
    parser.add_argument("--answers", choices=("archive", "model", "off"), default="archive")
    parser.add_argument("--tier", default=None, help="answering model for --answers model")
    parser.add_argument("--results-dir", default=None, help="default: the settings' results/")
    args = parser.parse_args(argv)
    settings = load_settings()
    if args.results_dir:
        settings = replace(settings, results_dir=Path(args.results_dir))
    for stem, table in counterfactual_tables(settings, args.study, args.answers, args.tier).items():
        directory = Path(settings.results_dir) / Path(stem).parent
        paths = export_table(table, Path(stem).name, directory)
        print(f"{paths['md']} ({len(table)} rows)")
