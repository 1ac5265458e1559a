"""Committed records say which configuration made them: a record file either carries a
configuration hash on every record or on none, except the two files the HotpotQA study README
documents (their older records predate the hash and are not provably of the same
configuration, so none was added)."""

from __future__ import annotations

import json

from tests.support.paths import REPO

RESULTS = REPO / "results"
#: The files that mix, named and explained in their study's README.
DOCUMENTED = {
    "hotpotqa_dev_sample200-n20-s0/arcrag-generator_r1p1.jsonl",
    "hotpotqa_dev_sample200-n20-s0/arcrag-generator_r1p1_openie.jsonl",
}


def _mixed() -> set[str]:
    found = set()
    for path in RESULTS.glob("*/*.jsonl"):
        lines = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines() if t.strip()]
        hashed = {bool(r.get("config_hash")) for r in lines if "method" in r and "id" in r}
        if hashed == {True, False}:
            found.add(path.relative_to(RESULTS).as_posix())
    return found


def test_only_the_documented_files_mix_records_with_and_without_a_configuration_hash():
    assert _mixed() == DOCUMENTED


def test_the_study_readme_names_each_mixed_file():
    for name in DOCUMENTED:
        study, file = name.split("/")
        readme = (RESULTS / study / "README.md").read_text(encoding="utf-8")
        assert f"`{file}`" in readme and "configuration hash" in readme
