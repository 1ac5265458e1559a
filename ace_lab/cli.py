"""The ``ace-lab`` command line (also ``python -m ace_lab``).

Notebooks and the CLI call the same functions; this module only parses arguments and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from ace_lab.config import Settings, load_settings


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
    elif args.action == "start":
        if not settings.llm.is_local:
            print(f"remote endpoint configured ({settings.llm.base_url}); nothing to start")
            return 0
        info = server.start(settings)
        print(json.dumps(asdict(info) | {"base_url": info.base_url}, indent=2))
    elif args.action == "stop":
        stopped = server.stop(settings)
        print(f"stopped {settings.llm.tier}" if stopped else f"no {settings.llm.tier} server")
    elif args.action == "status":
        if not settings.llm.is_local:
            print(f"remote endpoint {settings.llm.base_url} model {settings.llm.model}")
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
    from ace_lab.graph.build import build_graph

    settings = load_settings(**({"tier": args.model} if args.model else {}))
    for family in args.family:
        tables, out = build_graph(
            args.dataset, args.n, family, seed=args.seed, settings=settings,
            with_index=not args.no_index,
        )  # fmt: skip
        print(f"{family}: {out}")
        print(tables.stats().to_string())
        for row in tables.meta.get("cost", []):
            print("  cost:", row)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ace-lab", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    llm = sub.add_parser("llm", help="manage and test the LLM endpoint")
    llm.add_argument("action", choices=["prepare", "start", "stop", "status", "ping"])
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
    build.set_defaults(func=_cmd_build)

    data = sub.add_parser("data", help="overview of the benchmark data sets")
    data.set_defaults(func=_cmd_data)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
