"""The ``ace-lab`` command line (also ``python -m ace_lab``).

Notebooks and the CLI call the same functions; this module parses arguments, dispatches to the
handlers in :mod:`ace_lab.cli_commands` and holds the one error boundary, :func:`main`:

- a *known* error (:mod:`ace_lab.cli_commands.errors`: a bad argument, data set, setting,
  file or endpoint) prints ``ace-lab: error: <message>`` as one line on stderr and exits 2 for
  a usage error (the command line itself is wrong, argparse's own errors included) and 1
  otherwise; ``--debug`` prints its traceback instead;
- Ctrl-C prints ``ace-lab: interrupted`` and exits 130;
- any other exception is a bug: its traceback is printed (so a report can show where), then one
  line saying so, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from typing import NoReturn

from ace_lab.cli_commands.errors import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    UsageError,
    exit_status,
    known_error_types,
    one_line,
)
from ace_lab.cli_commands.reading import add_reread_parser
from ace_lab.config import DEFAULT_TIER
from ace_lab.config.settings import STORE_FORMS

PROG = "ace-lab"
TASKS = ["qa", "qfs", "open"]
EXTRACT = "extraction output: JSON, or compact lines under a grammar (graph folder <model>-compact)"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors reach the error boundary as one-line usage errors."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see: {self.prog} --help)")


def _count(text: str) -> int:
    """An argparse type: an integer >= 1 (a slice size, a limit, a number of workers)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _graph_slice_size(parser: argparse.ArgumentParser) -> None:
    """``--n`` of a command that answers on a built graph: the slice the graph was built for."""
    parser.add_argument(
        "--n",
        type=_count,
        default=20,
        help="slice size the graph was built for (a user corpus: ignored)",
    )


def _llm_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    llm = sub.add_parser("llm", parents=[common], help="manage and test the LLM endpoint")
    llm.add_argument(
        "action", choices=["prepare", "start", "stop", "status", "ping", "build-native"]
    )
    llm.add_argument("--force", action="store_true", help="build-native: rebuild even if built")
    llm.add_argument("--tier", help="local model tier (qwen1.5b, qwen0.5b, smollm135m)")
    llm.add_argument("--threads", type=_count, help="server threads (local tier)")
    llm.set_defaults(handler="llm:cmd_llm")


def _data_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    data = sub.add_parser(
        "data", parents=[common], help="the data sets on this machine; fetch a full set"
    )
    actions = data.add_subparsers(
        dest="data_action", metavar="{fetch}", help="(none: the overview of the sets here)"
    )
    fetch = actions.add_parser(
        "fetch", parents=[common], help="download a full benchmark set from its public source"
    )
    fetch.add_argument("name", help="a benchmark set (see: ace-lab data)")
    data.set_defaults(handler="datasets:cmd_data", data_action=None)

    corpus = sub.add_parser("corpus", parents=[common], help="your own corpora: add, list, remove")
    actions = corpus.add_subparsers(
        dest="corpus_action", required=True, metavar="{add,list,remove}"
    )
    add = actions.add_parser(
        "add", parents=[common], help="register (or update) a folder or file as corpus NAME"
    )
    add.add_argument("name", help="the corpus name (used as --dataset NAME)")
    add.add_argument("path", help="a folder or file: txt, md, html, pdf, json/jsonl/csv")
    add.add_argument("--questions", help="a questions file (json/jsonl/csv) to score against")
    actions.add_parser("list", parents=[common], help="the registered corpora")
    remove = actions.add_parser("remove", parents=[common], help="forget corpus NAME")
    remove.add_argument("name")
    corpus.set_defaults(handler="datasets:cmd_corpus")


def _answer_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    build = sub.add_parser(
        "build", parents=[common], help="build graph families for a data set slice"
    )
    build.add_argument("--dataset", required=True)
    build.add_argument(
        "--n",
        type=_count,
        help="questions in the slice (required for a benchmark set; a user "
        "corpus is always built whole)",
    )
    build.add_argument(
        "--family",
        nargs="+",
        default=["hierarchical"],
        choices=["hierarchical", "openie", "typed"],
    )
    build.add_argument(
        "--model", help=f"local model tier (default: ACE_LAB_LLM_TIER or {DEFAULT_TIER})"
    )
    build.add_argument("--seed", type=int, default=0)
    build.add_argument("--no-index", action="store_true", help="skip the seed indexes")
    build.add_argument("--estimate", action="store_true", help="print expected tokens, hours")
    build.add_argument("--extraction", choices=["json", "compact"], default="json", help=EXTRACT)
    build.set_defaults(handler="answering:cmd_build")

    ask = sub.add_parser(
        "ask", parents=[common], help="answer one question (a slice's or free text) with a method"
    )
    ask.add_argument("text", nargs="?", help="a free-text question (default: a slice question)")
    ask.add_argument("--method", required=True, help="e.g. ace-full, ace-adaptive, hirag")
    ask.add_argument("--dataset", required=True, help="a benchmark set or a user corpus")
    _graph_slice_size(ask)
    ask.add_argument("--question-id", help="question id in the slice (default: the first)")
    ask.add_argument("--seed", type=int, default=0)
    ask.add_argument("--model", help=f"local model tier answering (default: {DEFAULT_TIER})")
    ask.add_argument("--graph-model", default=DEFAULT_TIER, help="model the graph was built with")
    ask.add_argument("--trace", action="store_true", help="print every stage")
    ask.add_argument("--task", choices=TASKS, help="answer task (default: the data set's)")
    ask.set_defaults(handler="answering:cmd_ask")

    run = sub.add_parser(
        "run", parents=[common], help="evaluate methods on a slice (resumable, JSON lines)"
    )
    run.add_argument("--methods", nargs="+", required=True, help="e.g. hirag ace-full")
    run.add_argument("--dataset", required=True, help="a benchmark set or a user corpus")
    _graph_slice_size(run)
    run.add_argument(
        "--questions",
        metavar="FILE",
        help="answer these questions (json/jsonl/csv: question, answer, answer_aliases) instead "
        "of the slice's; default study: <slice id>-<file stem>",
    )
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--study", help="results/<study>/ folder (default: the slice id)")
    run.add_argument("--model", help=f"local model tier answering (default: {DEFAULT_TIER})")
    run.add_argument("--graph-model", default=DEFAULT_TIER, help="model the graph was built with")
    run.add_argument(
        "--concurrency",
        type=_count,
        default=None,
        help="questions in flight at once (default: ACE_LAB_LLM_CONCURRENCY for a remote "
        "endpoint, 1 for the local server)",
    )
    run.add_argument("--limit", type=_count, help="only the first LIMIT questions of the slice")
    run.add_argument(
        "--stratified",
        type=_count,
        metavar="K",
        help="only K questions spread over the question types (every type at least once)",
    )
    run.add_argument(
        "--estimate", action="store_true", help="print expected calls, tokens, hours; run nothing"
    )
    run.add_argument(
        "--evidence-only",
        action="store_true",
        help="stop each method at its final context, before the answer call; the records "
        "(answer coverage, recalls, tokens) go to the study <slice id>-evidence",
    )
    run.add_argument(
        "--budgets",
        nargs="*",
        type=_count,
        metavar="TOKENS",
        help="run every method at each context budget (its name + b<TOKENS>); without values: "
        "300 600 1000 1500",
    )
    run.add_argument(
        "--task",
        choices=TASKS,
        help="qa: multi-hop QA prompt and profile; qfs: query-focused summaries (UltraDomain); "
        "open: answers in sentences (GraphRAG-Bench); default: the data set's (with "
        "--questions: open when the file has no or sentence-long answers)",
    )
    run.set_defaults(handler="answering:cmd_run")


def _study_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    report = sub.add_parser("report", parents=[common], help="result tables of a study (no LLM)")
    report.add_argument("--study", help="results/<study>/ folder (default: the newest)")
    report.add_argument("--baseline", default="hirag", help="reference for ratios and tests")
    report.add_argument("--metric", help="paired tests' column (f1; evidence-only: passage_recall)")
    report.add_argument("--export", action="store_true", help="write csv/md/tex tables")
    report.add_argument(
        "--rescore",
        action="store_true",
        help="re-extract answers from the stored generations (after an extraction fix) first",
    )
    report.set_defaults(handler="studies:cmd_report")

    judge = sub.add_parser(
        "judge", parents=[common], help="pairwise LLM judge of two methods' answers (stored)"
    )
    judge.add_argument("--study", required=True, help="results/<study>/ folder")
    judge.add_argument("--a", required=True, help="method whose win rate is reported")
    judge.add_argument("--b", required=True, help="method it is compared against")
    judge.add_argument("--limit", type=_count, help="only the first LIMIT shared questions")
    judge.add_argument("--model", help=f"local model tier judging (default: {DEFAULT_TIER})")
    judge.set_defaults(handler="studies:cmd_judge")

    semantic = sub.add_parser(
        "semantic", parents=[common], help="LLM-judged answer equivalence (stored)"
    )
    semantic.add_argument("--study", required=True, help="results/<study>/ folder")
    semantic.add_argument("--methods", nargs="+", help="methods to judge (default: all)")
    semantic.add_argument("--model", help=f"local model tier judging (default: {DEFAULT_TIER})")
    semantic.set_defaults(handler="studies:cmd_semantic")

    add_reread_parser(sub, common)

    calibrate = sub.add_parser(
        "calibrate", parents=[common], help="the judge's calibration per judged metric (stored)"
    )
    calibrate.add_argument(
        "--metrics",
        nargs="+",
        metavar="METRIC",
        help="calibrate only these (evidence_recall context_relevancy coverage faithfulness "
        "acc_statements semantic_equivalence pairwise_preference; default: all)",
    )
    calibrate.add_argument("--n", type=_count, default=16, help="positives (= negatives) each")
    calibrate.add_argument("--model", help=f"local model tier judging (default: {DEFAULT_TIER})")
    calibrate.add_argument("--estimate", action="store_true", help="print the cost; call nothing")
    calibrate.add_argument("--identity", help="refuse unless the judge has this model identity")
    calibrate.add_argument("--missing", action="store_true", help="list uncalibrated judges")
    calibrate.set_defaults(handler="judging:cmd_calibrate")

    grb = sub.add_parser(
        "grb-score", parents=[common], help="GraphRAG-Bench metrics of a study (stored)"
    )
    grb.add_argument("--study", required=True, help="results/<study>/ folder")
    grb.add_argument("--methods", nargs="+", help="methods to score (default: all)")
    grb.add_argument("--model", help=f"local model tier judging (default: {DEFAULT_TIER})")
    grb.add_argument(
        "--metrics",
        nargs="+",
        metavar="METRIC",
        help="judge only these (answer_correctness rouge_score coverage_score faithfulness "
        "evidence_recall context_relevancy; default: all; rouge_score alone calls no model); "
        "a later run adds the rest to the same lines",
    )
    grb.add_argument(
        "--by-question",
        action="store_true",
        help="score every method's answer to one question before the next question's, taking "
        "the question types in turn, so a run stopped early leaves the methods compared on the "
        "same questions of every type it reached",
    )
    grb.add_argument(
        "--per-type",
        type=_count,
        metavar="K",
        help="score only the first K questions of each type, question by question (a "
        "stratified subset; a later run with a larger K or without it adds the rest)",
    )
    grb.set_defaults(handler="studies:cmd_grb_score")

    rename = sub.add_parser(
        "rename",
        parents=[common],
        help="rename a method's runs in a study (records, manifest, judged lines; no LLM)",
    )
    rename.add_argument("--study", required=True, help="results/<study>/ folder")
    rename.add_argument(
        "pairs",
        nargs="+",
        metavar="OLD=NEW",
        help="renamed in order, each only if NEW's configuration made OLD's records",
    )
    rename.set_defaults(handler="studies:cmd_rename")

    methods = sub.add_parser(
        "methods", parents=[common], help="the registered methods, or one method's settings"
    )
    methods.add_argument("name", nargs="?", help="a method name: list every setting it runs with")
    methods.set_defaults(handler="methods:cmd_methods")

    docs = sub.add_parser("docs", parents=[common], help="regenerate the docs' numbers (no LLM)")
    docs.add_argument("--check", action="store_true", help="only list stale numbers; exit 1")
    docs.set_defaults(handler="docs:cmd_docs")
    liveness = sub.add_parser(
        "liveness", parents=[common], help="how often each adaptive decision varied (no LLM)"
    )
    liveness.add_argument(
        "--studies", nargs="*", metavar="STUDY", help="studies to tabulate (default: committed)"
    )
    liveness.set_defaults(handler="liveness:cmd_liveness")

    verdicts = sub.add_parser(
        "verdicts",
        parents=[common],
        help="the verdict on each headline claim of the three papers, from records (no LLM)",
    )
    verdicts.set_defaults(handler="verdicts:cmd_verdicts")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--debug", action="store_true", help="show the traceback of an error instead of one line"
    )
    # Also accepted after the command; SUPPRESS keeps a missing one from resetting the global.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show the traceback of an error instead of one line",
    )
    for where in (parser, common):
        where.add_argument(
            "--store",
            metavar="URL",
            default=argparse.SUPPRESS,
            help=f"graph store: {STORE_FORMS} (default: ACE_LAB_GRAPH_STORE, else embedded)",
        )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _llm_parsers(sub, common)
    _data_parsers(sub, common)
    _answer_parsers(sub, common)
    _study_parsers(sub, common)
    return parser


def _dispatch(args: argparse.Namespace) -> int:
    from importlib import import_module

    module, function = args.handler.split(":")
    handler = getattr(import_module(f"ace_lab.cli_commands.{module}"), function)
    return int(handler(args) or 0)


def _use_store(url: str) -> None:
    """``--store``: the graph store every command of this process reads (checked first)."""
    import os

    from ace_lab.config import env_name
    from ace_lab.graph.store.url import parse_store_url

    parse_store_url(url)  # a bad URL is one line here, before any work
    os.environ[env_name("graph", "store")] = url


def main(argv: list[str] | None = None) -> int:
    """Run one ``ace-lab`` command; the exit status (module docstring: the error boundary)."""
    debug = "--debug" in (sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        debug = args.debug
        if getattr(args, "store", None):
            _use_store(args.store)
        return _dispatch(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if isinstance(exc, known_error_types()):
            if debug:
                traceback.print_exc()
            else:
                print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
            return exit_status(exc)
        traceback.print_exc()
        print(
            f"{PROG}: internal error (a bug; please report it with the traceback above)",
            file=sys.stderr,
        )
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
