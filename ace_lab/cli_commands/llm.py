"""``ace-lab llm``: prepare, start, stop, inspect and ping the LLM endpoint."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import TYPE_CHECKING

from ace_lab.cli_commands.checks import check_endpoint, settings_for
from ace_lab.config import redact_url

if TYPE_CHECKING:
    from ace_lab.config import Settings


def print_status(settings: Settings, tiers: list[str] | None = None) -> int:
    """One line per local tier with a live server (every tier, or only ``tiers``: a smoke-tier
    server is listed when the default tier is not running): its URL, pid and backend; exit
    status 1 when none runs."""
    from ace_lab.llm import server
    from ace_lab.llm.models import TIERS

    running = [info for tier in tiers or TIERS if (info := server.status(settings, tier))]
    for info in running:
        backend = (info.serving or {}).get("backend") or "local server"
        print(f"{info.tier}: running at {info.base_url} (pid {info.pid}, {backend})")
    if not running:
        print(f"{', '.join(tiers) if tiers else 'no tier'}: not running")
    return 0 if running else 1


def cmd_llm(args: argparse.Namespace) -> int:
    from ace_lab.llm import LLM, server

    settings = settings_for(args.tier, args.threads)
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
        return print_status(settings, [args.tier] if args.tier else None)
    elif args.action == "ping":
        check_endpoint(settings)
        llm = LLM(settings)
        completion = llm.ping()
        print(f"model:      {llm.model} ({llm.model_identity})")
        print(f"answer:     {completion.text.strip()!r}")
        print(f"cache hit:  {completion.cache_hit}")
        print(f"tokens:     {completion.prompt_tokens} in / {completion.completion_tokens} out")
        print(f"latency:    {completion.latency_s:.3f} s")
    return 0
