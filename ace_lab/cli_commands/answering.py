"""``ace-lab build``, ``ask`` and ``run``: the commands that call the LLM.

Each validates everything it can first — names, the slice and its size, the tier, the
endpoint — so a mistake costs a second, not a server start or a retry per question.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ace_lab.cli_commands.checks import (
    check_dataset,
    check_endpoint,
    check_method,
    check_methods,
    check_store,
    settings_for,
)
from ace_lab.cli_commands.errors import RunFailed, UsageError
from ace_lab.cli_commands.redirect import check_not_cut_at_redirect

if TYPE_CHECKING:
    from ace_lab.config import Settings
    from ace_lab.data import Question


def is_user_corpus(name: str) -> bool:
    """Whether ``name`` is a registered user corpus (built whole, so ``--n`` is not needed)."""
    from ace_lab.data import CORPUS
    from ace_lab.data.registry import get_spec

    return get_spec(name).setting == CORPUS


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While the block runs, SIGTERM (``kill``, ``timeout``, a job scheduler) stops it the way
    Ctrl-C does, so a build unwinds and archives the responses it paid for (graph.build)
    instead of dying where it stands."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_build(args: argparse.Namespace) -> int:
    from ace_lab.ask import slice_of

    check_dataset(args.dataset)
    settings = settings_for(args.model)
    if args.n is None and not is_user_corpus(args.dataset):
        raise UsageError(f"--n is required for the benchmark set {args.dataset}")
    args.n = slice_of(args.dataset, args.n, args.seed, settings.data_dir).n
    if args.estimate:
        from ace_lab.eval.studies.estimate import estimate_build, estimate_text

        table = estimate_build(args.family, args.dataset, args.n, seed=args.seed, settings=settings)
        print(estimate_text(table))
        return 0
    from ace_lab.graph.build import build_graph, cost_frame, extraction_config

    check_endpoint(settings)
    for family in args.family:
        compact = getattr(args, "extraction", "json") == "compact"  # JSON: the builder default
        options = {"config": extraction_config(family, "compact")} if compact else {}
        with sigterm_interrupts():
            tables, out = build_graph(
                args.dataset,
                args.n,
                family,
                seed=args.seed,
                settings=settings,
                with_index=not args.no_index,
                **options,
            )
        print(f"{family}: {out}")
        print(tables.stats().to_string())
        print(cost_frame(tables).to_string(index=False))
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    from ace_lab.ask import (
        ask,
        corpus_tokens,
        cost_line,
        format_trace,
        pick_question,
        score_line,
        whole_corpus_warning,
    )
    from ace_lab.methods.names import record_spelling

    check_not_cut_at_redirect([args.method])
    args.method = record_spelling(check_method(args.method))
    check_dataset(args.dataset)
    if args.text is not None and args.question_id is not None:
        raise UsageError("give --question-id or a free-text question, not both")
    if args.text is not None and not args.text.strip():
        raise UsageError("the free-text question is empty")
    settings = settings_for(args.model)
    pick_question(args.dataset, args.n, args.question_id, args.text, args.seed, settings.data_dir)
    check_endpoint(settings)
    check_store(settings, [args.method])
    asked = ask(
        args.method,
        args.dataset,
        args.n,
        args.question_id,
        text=args.text,
        seed=args.seed,
        graph_model=args.graph_model,
        settings=settings,
        task=args.task,
    )
    answer, question = asked.answer, asked.question
    if args.trace:  # the steps first, so the answer is what the terminal shows last
        print(format_trace(answer.trace))
        print("== context\n" + answer.context.render())
        print("== raw generation\n" + str(answer.raw or ""))
    print(f"question: {question.question}  [{question.id}]")
    print(f"gold:     {' | '.join(question.answers) if question.answers else '(none)'}")
    print(f"answer:   {answer.text}")
    if scores := score_line(question, answer):
        print(f"score:    {scores}")
    if answer.details is not None:
        print(f"details:  {answer.details.line()}")
    print(f"cost:     {cost_line(answer)}")
    # after the answer, so an error stays one line on stderr
    if warning := whole_corpus_warning(
        corpus_tokens(args.dataset, args.n, args.seed, settings.data_dir)
    ):
        print(f"warning:  {warning}")
    return 0


def file_questions(path: Path, dataset: str) -> tuple[list[Question], str]:
    """The questions of a user's questions file (JSON, JSONL or CSV, read by
    :func:`ace_lab.data.user_questions.read_questions`) and the answer task their gold answers
    imply; skipped records are listed, a file without a question is a ``DataError``."""
    from ace_lab.data import DataError, Question
    from ace_lab.data.user_questions import answer_style, read_questions

    if not path.is_file():
        raise UsageError(f"questions file {path} does not exist")
    records, skipped = read_questions(path)
    for where, reason in skipped:
        print(f"skipped {where}: {reason}")
    if not records:
        raise DataError(f"{path}: no usable question ({len(skipped)} skipped)")
    questions = [
        Question(
            r["id"], r["question"], r["answer"], tuple(r["answer_aliases"]), (), r["type"], dataset
        )
        for r in records
    ]
    return questions, answer_style(records)[0]


def _all_failed(failed: dict[str, tuple[int, str]]) -> RunFailed:
    counts = ", ".join(f"{method}: {n}" for method, (n, _) in failed.items())
    first = next((line for _, line in failed.values() if line), "")
    total = sum(n for n, _ in failed.values())
    return RunFailed(
        f"all {total} question(s) failed ({counts}); nothing was written; first error: {first}"
    )


def budget_sweep(methods: list[str], budgets: list[int]) -> list[str]:
    """Each method at each budget (``--budgets``; none given: the sweep's default budgets)."""
    from ace_lab.registry import canonical_name
    from ace_lab.registry.budget import SWEEP_BUDGETS, with_budget_token

    check_methods(methods)
    chosen = budgets or list(SWEEP_BUDGETS)
    return [with_budget_token(canonical_name(m), b) for m in methods for b in chosen]


def user_results(settings: Settings, dataset: str) -> Settings:
    """``settings`` writing a user corpus's studies to ``<user data folder>/results`` (beside
    its corpora, outside the repository) unless ``ACE_LAB_RESULTS_DIR`` names a folder; a
    benchmark set's go to the configured results folder as they are."""
    import os
    from dataclasses import replace

    from ace_lab.config import env_name
    from ace_lab.data.userdir import user_data_dir

    if not is_user_corpus(dataset) or os.environ.get(env_name("", "results_dir")):
        return settings
    return replace(settings, results_dir=user_data_dir() / "results")


def cmd_run(args: argparse.Namespace) -> int:
    from ace_lab.ask import slice_of
    from ace_lab.methods.names import record_spelling

    check_not_cut_at_redirect(args.methods)
    if args.budgets is not None:
        args.methods = budget_sweep(args.methods, args.budgets)
    args.methods = [record_spelling(m) for m in check_methods(args.methods)]
    check_dataset(args.dataset)
    if args.questions and args.estimate:
        raise UsageError("--estimate counts the slice's questions; drop --questions")
    settings = user_results(settings_for(args.model), args.dataset)
    sl = slice_of(args.dataset, args.n, args.seed, settings.data_dir)
    questions = None
    if args.questions:
        questions, task = file_questions(Path(args.questions), args.dataset)
        args.task = args.task or task
    if args.estimate:
        from ace_lab.eval.studies.estimate import estimate_study, estimate_text

        table = estimate_study(
            args.methods,
            args.dataset,
            args.n,
            seed=args.seed,
            study=args.study,
            limit=args.limit,
            stratified=args.stratified,
            concurrency=args.concurrency,
            settings=settings,
            evidence=args.evidence_only,
        )
        print(estimate_text(table))
        return 0
    check_endpoint(settings)
    check_store(settings, args.methods)
    study = args.study
    if questions is not None and study is None:
        study = f"{sl.slice_id}-{Path(args.questions).stem}"  # never mixed with the slice's
    return _run_methods(args, settings, study, questions)


def _run_methods(
    args: argparse.Namespace,
    settings: Settings,
    study: str | None,
    questions: list[Question] | None,
) -> int:
    """Each method over the questions; a method whose every question failed wrote nothing."""
    import pandas as pd

    from ace_lab.eval.reporting.evidence import evidence_table
    from ace_lab.eval.reporting.export import to_markdown
    from ace_lab.eval.reporting.tables import main_table
    from ace_lab.eval.studies.runner import run
    from ace_lab.llm import get_llm
    from ace_lab.registry import graph_family
    from ace_lab.retrieval import RetrievalGraph

    llm = get_llm(settings)
    graphs: dict[str, RetrievalGraph] = {}  # one load per graph family, shared by methods
    frames, errors = [], 0
    failed: dict[str, tuple[int, str]] = {}
    for method in args.methods:
        family = graph_family(method)
        if family not in graphs:
            graphs[family] = RetrievalGraph.load(
                args.dataset,
                args.n,
                family,
                model=args.graph_model,
                seed=args.seed,
                settings=settings,
            )
        frame = run(
            method,
            args.dataset,
            args.n,
            seed=args.seed,
            study=study,
            settings=settings,
            llm=llm,
            graph=graphs[family],
            graph_model=args.graph_model,
            concurrency=args.concurrency,
            limit=args.limit,
            task=args.task,
            stratified=args.stratified,
            questions=questions,
            evidence=args.evidence_only,
        )
        errors += frame.attrs.get("errors", 0)
        if "first_error" in frame.attrs:  # every question of this run failed: none written
            failed[method] = (frame.attrs["errors"], frame.attrs["first_error"])
            if args.debug and frame.attrs.get("first_traceback"):
                print(frame.attrs["first_traceback"], file=sys.stderr)
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    if table.empty:
        if failed:
            raise _all_failed(failed)
        print("no questions to answer")
        return 0
    if args.evidence_only:
        print(to_markdown(evidence_table(table)))
    else:
        table = main_table(table)
        columns = ["method", "n", "EM [95% CI]", "F1 [95% CI]", "input_tokens", "wall_s"]
        print(to_markdown(table[columns]))
    studies = dict.fromkeys(str(f.attrs["study"]) for f in frames if f.attrs.get("study"))
    for study in studies:  # where the records went (a user corpus: outside the repository)
        print(f"records: {Path(settings.results_dir) / study}")
    for method, (n, first) in failed.items():
        print(f"{method}: all {n} question(s) of this run failed, none written; first: {first}")
    if errors:
        print(f"{errors} question(s) failed; rerun the same command to retry them")
    return 1 if errors else 0
