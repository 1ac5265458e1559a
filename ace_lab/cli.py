"""The ``ace-lab`` command line (also ``python -m ace_lab``).

Notebooks and the CLI call the same functions; this module only parses arguments and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from ace_lab.config import Settings, load_settings, redact_url


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {}
    if getattr(args, "tier", None):
        overrides["tier"] = args.tier
    if getattr(args, "threads", None):
        overrides["threads"] = args.threads
    return load_settings(**overrides)


def _cmd_llm(args: argparse.Namespace) -> int:
    from ace_lab.llm import LLM, server

    settings = _settings(args)
    if args.action == "prepare":
        from ace_lab.llm import prepare_model

        path = prepare_model(settings.llm.tier, settings.model_dir)
        print(f"{settings.llm.tier}: {path} (sha256 verified)")
    elif args.action == "build-native":
        from ace_lab.llm.native import build

        build(settings.model_dir, force=args.force)
    elif args.action == "start":
        if not settings.llm.is_local:
            endpoint = redact_url(settings.llm.base_url)
            print(f"remote endpoint configured ({endpoint}); nothing to start")
            return 0
        info = server.start(settings)
        print(json.dumps(asdict(info) | {"base_url": info.base_url}, indent=2))
    elif args.action == "stop":
        stopped = server.stop(settings)
        print(f"stopped {settings.llm.tier}" if stopped else f"no {settings.llm.tier} server")
    elif args.action == "status":
        if not settings.llm.is_local:
            print(f"remote endpoint {redact_url(settings.llm.base_url)} model {settings.llm.model}")
            return 0
        info = server.status(settings)
        if info is None:
            print(f"{settings.llm.tier}: not running")
            return 1
        print(json.dumps(asdict(info) | {"base_url": info.base_url}, indent=2))
    elif args.action == "ping":
        llm = LLM(settings)
        completion = llm.ping()
        print(f"model:      {llm.model} ({llm.model_identity})")
        print(f"answer:     {completion.text.strip()!r}")
        print(f"cache hit:  {completion.cache_hit}")
        print(f"tokens:     {completion.prompt_tokens} in / {completion.completion_tokens} out")
        print(f"latency:    {completion.latency_s:.3f} s")
    return 0


def _cmd_data(args: argparse.Namespace) -> int:
    from ace_lab.data import dataset_overview

    print(dataset_overview().to_string(index=False))
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from ace_lab.graph.build import build_graph, cost_frame

    settings = load_settings(**({"tier": args.model} if args.model else {}))
    if args.estimate:
        from ace_lab.eval.estimate import estimate_build, estimate_text

        table = estimate_build(args.family, args.dataset, args.n, seed=args.seed, settings=settings)
        print(estimate_text(table))
        return 0
    for family in args.family:
        tables, out = build_graph(
            args.dataset, args.n, family, seed=args.seed, settings=settings,
            with_index=not args.no_index,
        )  # fmt: skip
        print(f"{family}: {out}")
        print(tables.stats().to_string())
        print(cost_frame(tables).to_string(index=False))
    return 0


def _cmd_ask(args: argparse.Namespace) -> int:
    from ace_lab.ask import ask, cost_line, format_trace

    settings = load_settings(**({"tier": args.model} if args.model else {}))
    asked = ask(
        args.method, args.dataset, args.n, args.question_id, seed=args.seed,
        graph_model=args.graph_model, settings=settings, task=args.task,
    )  # fmt: skip
    answer, question = asked.answer, asked.question
    if args.trace:
        print(format_trace(answer.trace))
        print("== context\n" + answer.context.render())
        print("== raw generation\n" + str(answer.meta.get("raw", "")))
    print(f"question: {question.question}  [{question.id}]")
    print(f"gold:     {' | '.join(question.answers)}")
    print(f"answer:   {answer.text}")
    if "policy" in answer.meta:
        topology = answer.meta.get("topology")
        print(
            f"policy:   {answer.meta['policy']['label']}"
            + (f" (router: {topology})" if topology else "")
        )
    print(f"cost:     {cost_line(answer)}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    import pandas as pd

    from ace_lab.eval.export import to_markdown
    from ace_lab.eval.runner import run
    from ace_lab.eval.tables import main_table
    from ace_lab.llm import get_llm
    from ace_lab.registry import graph_family
    from ace_lab.retrieval import RetrievalGraph

    settings = load_settings(**({"tier": args.model} if args.model else {}))
    if args.estimate:
        from ace_lab.eval.estimate import estimate_study, estimate_text

        table = estimate_study(args.methods, args.dataset, args.n, seed=args.seed,
                               study=args.study, limit=args.limit, stratified=args.stratified,
                               settings=settings)  # fmt: skip
        print(estimate_text(table))
        return 0
    llm = get_llm(settings)
    graphs: dict[str, RetrievalGraph] = {}  # one load per graph family, shared by methods
    frames, errors = [], 0
    for method in args.methods:
        family = graph_family(method)
        if family not in graphs:
            graphs[family] = RetrievalGraph.load(
                args.dataset, args.n, family, model=args.graph_model, seed=args.seed,
                settings=settings,
            )  # fmt: skip
        frame = run(
            method, args.dataset, args.n, seed=args.seed, study=args.study, settings=settings,
            llm=llm, graph=graphs[family], graph_model=args.graph_model,
            concurrency=args.concurrency, limit=args.limit, task=args.task,
            stratified=args.stratified,
        )  # fmt: skip
        errors += frame.attrs.get("errors", 0)
        frames.append(frame)
    table = main_table(pd.concat(frames, ignore_index=True))
    columns = ["method", "n", "EM [95% CI]", "F1 [95% CI]", "input_tokens", "wall_s"]
    print(to_markdown(table[columns]))
    if errors:
        print(f"{errors} question(s) failed; rerun the same command to retry them")
    return 1 if errors else 0


def _cmd_report(args: argparse.Namespace) -> int:
    from ace_lab.eval.export import export_table, to_markdown
    from ace_lab.eval.study import latest_study, load_results, rescore, study_dir
    from ace_lab.eval.tables import COST_COLUMNS, cost_table, main_table, paired_tests

    settings = load_settings()
    study = args.study or latest_study(settings)
    if args.rescore:
        print("re-extracted answers changed:", rescore(study, settings))
    df = load_results(study, settings)
    main = main_table(df)
    tables = {"main_table": main, "cost_table": cost_table(df, reference=args.baseline)}
    if args.baseline in set(df["method"]) and df["method"].nunique() > 1:
        tables["paired_tests"] = paired_tests(df, args.baseline)
    print(f"# {study}: {df['method'].nunique()} methods, {df['id'].nunique()} questions\n")
    shown = ["method", "n", "EM [95% CI]", "F1 [95% CI]", *COST_COLUMNS]
    print("## Accuracy\n\n" + to_markdown(main[[c for c in shown if c in main]]) + "\n")
    print(f"## Cost per query (input ratio vs {args.baseline})\n")
    print(to_markdown(tables["cost_table"]))
    if note := tables["cost_table"].attrs.get("note"):
        print(f"\nnote: {note}")
    if "paired_tests" in tables:
        paired = tables["paired_tests"]
        columns = ["method", "n", "F1", "F1_baseline", "diff [95% CI]", "p_permutation"]
        print(f"\n## F1 vs {args.baseline} (paired)\n\n" + to_markdown(paired[columns]))
    if args.export:
        for name, table in tables.items():
            paths = export_table(table, name, study_dir(study, settings))
            print(f"wrote {', '.join(str(p) for p in paths.values())}")
    return 0


def _cmd_judge(args: argparse.Namespace) -> int:
    from ace_lab.eval.export import to_markdown
    from ace_lab.eval.judging import judge_study, preference_table

    settings = load_settings(**({"tier": args.model} if args.model else {}))
    # The LLM is created (and a local server started) only if a question is left to judge.
    frame = judge_study(args.study, args.a, args.b, settings=settings, limit=args.limit)
    errors = frame.attrs.get("errors", 0)
    print(f"# {args.study}: {args.a} vs {args.b}, {len(frame)} questions judged\n")
    table = preference_table(args.study, [(args.a, args.b)], settings)
    columns = ["criterion", "n", "wins_a", "wins_b", "ties", "fallbacks", "win_rate_a", "note"]
    print(to_markdown(table[columns]))
    if errors:
        print(f"{errors} judge call(s) failed; rerun the same command to retry them")
    return 1 if errors else 0


def _cmd_semantic(args: argparse.Namespace) -> int:
    from ace_lab.eval.export import to_markdown
    from ace_lab.eval.semantic import load_semantic, semantic_report, semantic_study
    from ace_lab.eval.study import load_results

    settings = load_settings(**({"tier": args.model} if args.model else {}))
    new = semantic_study(args.study, args.methods, settings=settings)
    df = load_results(args.study, settings)
    methods = args.methods or list(dict.fromkeys(df["method"]))
    print(f"# {args.study}: {len(new)} answers judged now\n")
    print(to_markdown(semantic_report(df, load_semantic(args.study, settings), methods)))
    if errors := new.attrs.get("errors", 0):
        print(f"{errors} judge call(s) failed; rerun the same command to retry them")
    return 1 if errors else 0


def _cmd_grb_score(args: argparse.Namespace) -> int:
    from ace_lab.eval.export import to_markdown
    from ace_lab.eval.graphragbench import IMPLEMENTED
    from ace_lab.eval.graphragbench_store import grb_table, grb_wide, load_scores, score_study
    from ace_lab.eval.study import load_results

    settings = load_settings(**({"tier": args.model} if args.model else {}))
    new = score_study(args.study, args.methods, settings=settings, metrics=args.metrics)
    df = load_results(args.study, settings)
    methods = args.methods or list(dict.fromkeys(df["method"]))
    judge = {k: new.attrs.get(k) for k in ("judge_identity", "embed_model")}
    table = grb_table(df, load_scores(args.study, settings), methods, **judge)
    print(f"# {args.study}: {len(new)} answers scored now (GraphRAG-Bench metrics)")
    if table.empty:
        print("no scores of these methods' current answers")
    for metric in IMPLEMENTED:
        wide = grb_wide(table, metric)
        if not wide.empty:
            print(f"\n## {metric} (mean [95% CI]; Overall weighted by query count)\n")
            print(to_markdown(wide))
    if errors := new.attrs.get("errors", 0):
        print(f"{errors} judge call(s) failed; rerun the same command to retry them")
    return 1 if errors else 0


def _cmd_methods(args: argparse.Namespace) -> int:
    import pandas as pd

    from ace_lab.registry import describe_method, method_table, spec

    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        if args.name is None:
            print(method_table().to_string(index=False))
            print(
                "\nalso: ace-fixed:<policy label>, <ace method>@graphrag, "
                "arcrag:r<retries>p<passes>[@openie], mosaic-budget-matched:<budget>x<depth>, "
                "<mosaic method>@openie"
            )
            print("every setting of one method: ace-lab methods NAME")
            return 0
        try:
            method = spec(args.name)
        except KeyError as err:
            print(err.args[0], file=sys.stderr)
            return 2
        print(f"{method.name} ({method.family} graph): {method.description}\n")
        print(describe_method(args.name).to_string(index=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ace-lab", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    llm = sub.add_parser("llm", help="manage and test the LLM endpoint")
    llm.add_argument(
        "action", choices=["prepare", "start", "stop", "status", "ping", "build-native"]
    )
    llm.add_argument("--force", action="store_true", help="build-native: rebuild even if built")
    llm.add_argument("--tier", help="local model tier (qwen1.5b, qwen0.5b, smollm135m)")
    llm.add_argument("--threads", type=int, help="server threads (local tier)")
    llm.set_defaults(func=_cmd_llm)

    build = sub.add_parser("build", help="build graph families for a data set slice")
    build.add_argument("--dataset", required=True)
    build.add_argument("--n", type=int, required=True, help="questions in the slice")
    build.add_argument(
        "--family", nargs="+", default=["hierarchical"],
        choices=["hierarchical", "openie", "typed"],
    )  # fmt: skip
    build.add_argument("--model", help="local model tier (default: ACE_LAB_LLM_TIER or qwen1.5b)")
    build.add_argument("--seed", type=int, default=0)
    build.add_argument("--no-index", action="store_true", help="skip the seed indexes")
    build.add_argument("--estimate", action="store_true", help="print expected tokens, hours")
    build.set_defaults(func=_cmd_build)

    ask = sub.add_parser("ask", help="answer one question with one method")
    ask.add_argument("--method", required=True, help="e.g. ace-full, ace-adaptive, hirag")
    ask.add_argument("--dataset", required=True)
    ask.add_argument("--n", type=int, default=20, help="slice size the graph was built for")
    ask.add_argument("--question-id", help="question id in the slice (default: the first)")
    ask.add_argument("--seed", type=int, default=0)
    ask.add_argument("--model", help="local model tier answering (default: qwen1.5b)")
    ask.add_argument("--graph-model", default="qwen1.5b", help="model the graph was built with")
    ask.add_argument("--trace", action="store_true", help="print every stage")
    ask.add_argument(
        "--task", choices=["qa", "qfs", "open"], help="answer task (default: the data set's)"
    )
    ask.set_defaults(func=_cmd_ask)

    run = sub.add_parser("run", help="evaluate methods on a slice (resumable, JSON lines)")
    run.add_argument("--methods", nargs="+", required=True, help="e.g. hirag ace-full")
    run.add_argument("--dataset", required=True)
    run.add_argument("--n", type=int, default=20, help="slice size the graph was built for")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--study", help="results/<study>/ folder (default: the slice id)")
    run.add_argument("--model", help="local model tier answering (default: qwen1.5b)")
    run.add_argument("--graph-model", default="qwen1.5b", help="model the graph was built with")
    run.add_argument("--concurrency", type=int, default=1, help="questions in flight at once")
    run.add_argument("--limit", type=int, help="only the first LIMIT questions of the slice")
    run.add_argument(
        "--stratified", type=int, metavar="K",
        help="only K questions spread over the question types (every type at least once)",
    )  # fmt: skip
    run.add_argument(
        "--estimate", action="store_true", help="print expected calls, tokens, hours; run nothing"
    )
    run.add_argument(
        "--task", choices=["qa", "qfs", "open"],
        help="qa: multi-hop QA prompt and profile; qfs: query-focused summaries (UltraDomain); "
        "open: answers in sentences (GraphRAG-Bench); default: the data set's",
    )  # fmt: skip
    run.set_defaults(func=_cmd_run)

    report = sub.add_parser("report", help="result tables of a study (no LLM)")
    report.add_argument("--study", help="results/<study>/ folder (default: the newest)")
    report.add_argument("--baseline", default="hirag", help="reference for ratios and tests")
    report.add_argument("--export", action="store_true", help="write csv/md/tex tables")
    report.add_argument(
        "--rescore", action="store_true",
        help="re-extract answers from the stored generations (after an extraction fix) first",
    )  # fmt: skip
    report.set_defaults(func=_cmd_report)

    judge = sub.add_parser("judge", help="pairwise LLM judge of two methods' answers (stored)")
    judge.add_argument("--study", required=True, help="results/<study>/ folder")
    judge.add_argument("--a", required=True, help="method whose win rate is reported")
    judge.add_argument("--b", required=True, help="method it is compared against")
    judge.add_argument("--limit", type=int, help="only the first LIMIT shared questions")
    judge.add_argument("--model", help="local model tier judging (default: qwen1.5b)")
    judge.set_defaults(func=_cmd_judge)

    semantic = sub.add_parser("semantic", help="LLM-judged answer equivalence (stored)")
    semantic.add_argument("--study", required=True, help="results/<study>/ folder")
    semantic.add_argument("--methods", nargs="+", help="methods to judge (default: all)")
    semantic.add_argument("--model", help="local model tier judging (default: qwen1.5b)")
    semantic.set_defaults(func=_cmd_semantic)

    grb = sub.add_parser("grb-score", help="GraphRAG-Bench metrics of a study (stored)")
    grb.add_argument("--study", required=True, help="results/<study>/ folder")
    grb.add_argument("--methods", nargs="+", help="methods to score (default: all)")
    grb.add_argument("--model", help="local model tier judging (default: qwen1.5b)")
    grb.add_argument(
        "--metrics", nargs="+", metavar="METRIC",
        help="judge only these (answer_correctness rouge_score coverage_score evidence_recall "
        "context_relevancy; default: all); a later run adds the rest to the same lines",
    )  # fmt: skip
    grb.set_defaults(func=_cmd_grb_score)

    methods = sub.add_parser("methods", help="the registered methods, or one method's settings")
    methods.add_argument("name", nargs="?", help="a method name: list every setting it runs with")
    methods.set_defaults(func=_cmd_methods)

    data = sub.add_parser("data", help="overview of the benchmark data sets")
    data.set_defaults(func=_cmd_data)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
