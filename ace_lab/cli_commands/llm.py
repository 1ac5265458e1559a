"""``ace-lab llm``: prepare, start, stop, inspect and ping the LLM endpoint."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from ace_lab.cli_commands.checks import check_endpoint, settings_for
from ace_lab.config import redact_url


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
        info = server.status(settings)
        if info is None:
            print(f"{settings.llm.tier}: not running")
            return 1
        print(json.dumps(asdict(info) | {"base_url": info.base_url}, indent=2))
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
