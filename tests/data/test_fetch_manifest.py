"""The packaged fetch manifest: its shape, and that the generator makes it from MANIFEST.json."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from ace_lab.data.fetch_manifest import (
    FETCHABLE,
    GENERATOR,
    MANIFEST_FILE,
    NOT_FETCHABLE,
    build_fetch_manifest,
    load_fetch_manifest,
    main,
    raw_url,
    render,
)
from ace_lab.data.normalise import NORMALISERS
from ace_lab.data.records import DataError
from ace_lab.data.registry import DATASETS, TOY
from tests.support.paths import REPO

SOURCE = REPO.parent / "shared" / "data" / "MANIFEST.json"
SHA256 = re.compile(r"[0-9a-f]{64}")


def test_every_registered_set_is_listed_fetchable_or_with_a_reason() -> None:
    manifest = load_fetch_manifest()
    assert manifest["header"]["generated_by"] == GENERATOR
    assert set(manifest["sets"]) == set(DATASETS) - {TOY}
    assert set(FETCHABLE).isdisjoint(NOT_FETCHABLE)
    for name, entry in manifest["sets"].items():
        assert entry["outputs"], name
        assert all(SHA256.fullmatch(o["sha256"]) for o in entry["outputs"])
        if not entry["fetch"]:
            assert entry["reason"], name
            continue
        assert entry["normaliser"] in NORMALISERS
        assert sorted(f["role"] for f in entry["files"]) == sorted(FETCHABLE[name][1].values())
        for spec in entry["files"]:
            assert spec["url"].startswith("https://raw.githubusercontent.com/"), spec
            assert SHA256.fullmatch(spec["sha256"]) and spec["bytes"] > 0


def test_the_manifest_ships_with_the_package() -> None:
    pyproject = (REPO / "pyproject.toml").read_text()
    assert '"ace_lab.data" = ["*.json"]' in pyproject
    assert MANIFEST_FILE.parent.name == "data" and MANIFEST_FILE.is_file()


def test_raw_urls_quote_their_paths() -> None:
    assert (
        raw_url("o/r", "c0", "data/A b.csv")
        == "https://raw.githubusercontent.com/o/r/c0/data/A%20b.csv"
    )


def test_the_committed_manifest_is_what_the_generator_makes(tmp_path: Path) -> None:
    if not SOURCE.is_file():
        pytest.skip(f"{SOURCE} not present (no ../shared/data beside the repository)")
    raw = SOURCE.read_bytes()
    built = build_fetch_manifest(json.loads(raw), hashlib.sha256(raw).hexdigest())
    assert render(built) == MANIFEST_FILE.read_text(encoding="utf-8"), f"rerun: {GENERATOR}"
    out = tmp_path / "m.json"
    assert main([str(SOURCE), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == MANIFEST_FILE.read_text(encoding="utf-8")


def test_a_fetchable_set_without_its_raw_file_is_an_error() -> None:
    source = {spec.folder: {"files": [], "sources": []} for spec in DATASETS.values()}
    with pytest.raises(DataError, match="no raw file"):
        build_fetch_manifest(source)


def test_a_broken_manifest_file_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(DataError, match="no 'sets' object"):
        load_fetch_manifest(path)
