"""``ace-lab report``, ``judge``, ``semantic``, ``grb-score`` and ``methods``: reading and
scoring stored studies, and the method registry."""

from __future__ import annotations

import argparse
import sys

from ace_lab.cli_commands.checks import check_method, settings_for
from ace_lab.config import load_settings


def cmd_report(args: argparse.Namespace) -> int:
    from ace_lab.eval.reporting.export import export_table, to_markdown
    from ace_lab.eval.reporting.tables import (
        MAIN_VIEW,
        cost_table,
        default_paired_metric,
        main_table,
        paired_tests,
        paired_view,
    )
    from ace_lab.eval.studies.study import (
        identity_mix,
        latest_study,
        load_results,
        rescore,
        study_dir,
    )

    settings = load_settings()
    study = args.study or latest_study(settings)
    if args.rescore:
        print("re-extracted answers changed:", rescore(study, settings))
    df = load_results(study, settings)
    main = main_table(df)
    tables = {"main_table": main, "cost_table": cost_table(df, reference=args.baseline)}
    metric = args.metric or default_paired_metric(df)
    if metric not in df:
        raise ValueError(f"{study} has no column {metric!r} to test; --metric names a metric")
    if args.baseline in set(df["method"]) and df["method"].nunique() > 1:
        tables["paired_tests"] = paired_tests(df, args.baseline, metric=metric)
    print(f"# {study}: {df['method'].nunique()} methods, {df['id'].nunique()} questions\n")
    for warning in identity_mix(df, settings):  # a method answered by more than one model
        print(f"warning: {warning}", file=sys.stderr)
    print("## Accuracy\n\n" + to_markdown(main[[c for c in MAIN_VIEW if c in main]]) + "\n")
    print(f"## Cost per query (input ratio vs {args.baseline})\n")
    print(to_markdown(tables["cost_table"]))
    if note := tables["cost_table"].attrs.get("note"):
        print(f"\nnote: {note}")
    if "paired_tests" in tables:
        paired = tables["paired_tests"]
        shown = paired[[c for c in paired_view(metric) if c in paired]]  # p_holm: over the rows
        print(f"\n## {metric.upper()} vs {args.baseline} (paired)\n\n" + to_markdown(shown))
        print(
            f"\np_holm: Holm-adjusted over this table's comparisons; mde: the smallest true "
            f"{metric} difference detectable at this n (paired, alpha 0.05, power 0.8); "
            "n_for_+0.05: questions needed to detect +0.05"
        )
    if args.export:
        for name, table in tables.items():
            paths = export_table(table, name, study_dir(study, settings))
            print(f"wrote {', '.join(str(p) for p in paths.values())}")
    return 0


def cmd_judge(args: argparse.Namespace) -> int:
    from ace_lab.eval.judging import judge_study, preference_table
    from ace_lab.eval.reporting.export import to_markdown

    settings = settings_for(args.model)
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


def cmd_semantic(args: argparse.Namespace) -> int:
    from ace_lab.eval.judging.semantic import load_semantic, semantic_report, semantic_study
    from ace_lab.eval.reporting.export import to_markdown
    from ace_lab.eval.studies.study import load_results

    settings = settings_for(args.model)
    new = semantic_study(args.study, args.methods, settings=settings)
    df = load_results(args.study, settings)
    methods = args.methods or list(dict.fromkeys(df["method"]))
    print(f"# {args.study}: {len(new)} answers judged now\n")
    verdicts = load_semantic(args.study, settings)
    print(to_markdown(semantic_report(df, verdicts, methods, settings=settings)))
    if errors := new.attrs.get("errors", 0):
        print(f"{errors} judge call(s) failed; rerun the same command to retry them")
    return 1 if errors else 0


def cmd_grb_score(args: argparse.Namespace) -> int:
    from ace_lab.eval.graphragbench import IMPLEMENTED
    from ace_lab.eval.graphragbench.run import (
        add_rouge,
        check_metrics,
        question_order,
        score_study,
    )
    from ace_lab.eval.graphragbench.store import grb_table, grb_wide, load_scores
    from ace_lab.eval.reporting.export import to_markdown
    from ace_lab.eval.studies.study import load_results

    settings = settings_for(args.model)
    df = load_results(args.study, settings)
    if check_metrics(args.metrics) == ("rouge_score",):  # no judge: added to the stored lines
        new = add_rouge(args.study, settings)
    else:
        by_question = args.by_question or args.per_type is not None
        ids = question_order(df, args.per_type) if by_question else None
        new = score_study(
            args.study, args.methods, settings=settings, metrics=args.metrics, ids=ids
        )
    methods = args.methods or list(dict.fromkeys(df["method"]))
    judge = {k: new.attrs.get(k) for k in ("judge_identity", "embed_model")}
    table = grb_table(df, load_scores(args.study, settings), methods, **judge, settings=settings)
    print(f"# {args.study}: {len(new)} answers scored now (GraphRAG-Bench metrics)")
    if table.empty:
        print("no scores of these methods' current answers")
    for metric in IMPLEMENTED:
        wide = grb_wide(table, metric)
        if not wide.empty:
            print(f"\n## {metric} (mean [95% CI]; overall weighted by query count, not official)\n")
            print(to_markdown(wide))
    if errors := new.attrs.get("errors", 0):
        print(f"{errors} judge call(s) failed; rerun the same command to retry them")
    return 1 if errors else 0


def cmd_rename(args: argparse.Namespace) -> int:
    from ace_lab.cli_commands.errors import UsageError
    from ace_lab.eval.studies.rename import rename_method
    from ace_lab.eval.studies.study import study_dir
    from ace_lab.registry import canonical_name

    pairs = [pair.split("=", 1) for pair in args.pairs]
    if bad := [p for p, parts in zip(args.pairs, pairs, strict=True) if len(parts) != 2]:
        raise UsageError(f"{bad[0]!r}: write OLD=NEW, e.g. mosaic=mosaic:signals")
    directory = study_dir(args.study, load_settings())
    for old, new in pairs:
        print(rename_method(directory, old, canonical_name(check_method(new))).line())
    return 0
