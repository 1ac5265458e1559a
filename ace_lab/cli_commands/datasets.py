"""``ace-lab data`` (overview, ``fetch``) and ``ace-lab corpus add|list|remove``: the data sets
on this machine, the full benchmark sets fetched from their sources, and the user's corpora."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ace_lab.cli_commands.checks import check_dataset, did_you_mean
from ace_lab.cli_commands.errors import UsageError

if TYPE_CHECKING:
    from ace_lab.data.corpora import CorpusInfo


def cmd_data(args: argparse.Namespace) -> int:
    if args.data_action == "fetch":
        return _fetch(args)
    from ace_lab.data import dataset_overview

    print(dataset_overview().to_string(index=False))
    return 0


def _fetch(args: argparse.Namespace) -> int:
    from ace_lab.data.fetch import fetch_dataset

    check_dataset(args.name)
    path = fetch_dataset(args.name)
    print(f"{args.name}: {path}")
    return 0


def cmd_corpus(args: argparse.Namespace) -> int:
    from ace_lab.data import corpora

    if args.corpus_action == "add":
        path = Path(args.path).expanduser()
        if not path.exists():
            raise UsageError(f"corpus folder or file {path} does not exist")
        if args.questions and not Path(args.questions).expanduser().is_file():
            raise UsageError(f"questions file {args.questions} does not exist")
        report = corpora.add_corpus(args.name, path, questions=args.questions)
        print(report.summary())
    elif args.corpus_action == "list":
        found = corpora.list_corpora()
        if not found:
            print("no user corpora; add one with: ace-lab corpus add NAME PATH")
        for info in found:
            print(_describe(info))
    elif args.corpus_action == "remove":
        if not corpora.remove_corpus(args.name):
            from ace_lab.data.userdir import registered_corpora

            known = registered_corpora()
            raise UsageError(f"no user corpus named {args.name!r}{did_you_mean(args.name, known)}")
        print(f"removed {args.name}")
    return 0


def _describe(info: CorpusInfo) -> str:
    """One line per corpus: name, sizes, answer task, where it is stored."""
    return (
        f"{info.name}: {info.documents} documents, {info.questions} questions "
        f"(task {info.task}, answers: {info.answers}), updated {info.updated}, in {info.folder}"
    )
