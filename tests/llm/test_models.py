"""ace_lab.llm.models: joining split model parts, sha256 checks, tier errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ace_lab.llm import models as llm_models
from ace_lab.llm.models import ModelError, ModelTier, prepare_model


def _fake_part_package(root: Path, name: str, payload: bytes) -> None:
    pkg = root / name
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "data" / "part01.bin").write_bytes(payload)


def test_prepare_model_joins_parts_and_verifies_sha(tmp_path, monkeypatch):
    import hashlib

    _fake_part_package(tmp_path, "acefake_part1", b"hello ")
    _fake_part_package(tmp_path, "acefake_part2", b"world")
    monkeypatch.syspath_prepend(str(tmp_path))
    parts = (("acefake_part1", "data/part01.bin"), ("acefake_part2", "data/part01.bin"))
    good = ModelTier(
        "fake", "", parts, hashlib.sha256(b"hello world").hexdigest(), "fake.gguf", "pip x"
    )
    monkeypatch.setitem(llm_models.TIERS, "fake", good)
    path = prepare_model("fake", tmp_path / "models")
    assert path.read_bytes() == b"hello world"
    assert prepare_model("fake", tmp_path / "models") == path  # verified marker reused

    bad = ModelTier("bad", "", parts, "0" * 64, "bad.gguf", "pip install bad-parts")
    monkeypatch.setitem(llm_models.TIERS, "bad", bad)
    with pytest.raises(ModelError, match="sha256"):
        prepare_model("bad", tmp_path / "models")


def test_missing_part_package_names_the_install_command(tmp_path, monkeypatch):
    tier = ModelTier("gone", "", (("no_such_pkg_x", "a.bin"),), "0" * 64, "g", "pip install g")
    monkeypatch.setitem(llm_models.TIERS, "gone", tier)
    with pytest.raises(ModelError, match="pip install g"):
        prepare_model("gone", tmp_path)


def test_unknown_tier_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="known tiers"):
        prepare_model("gpt-17", tmp_path)
