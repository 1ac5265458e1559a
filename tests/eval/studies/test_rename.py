"""ace_lab.eval.studies.rename: a method's runs take a new name only when the new name's
configuration made them, with everything that names them, and nothing is written otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ace_lab.eval.studies.identity import config_hash
from ace_lab.eval.studies.jsonl import ResultsError, read_jsonl
from ace_lab.eval.studies.rename import hash_under, rename_method
from ace_lab.eval.studies.study import MANIFEST

OLD, NEW = "mosaic-legacy", "mosaic:signals"  # as if the mapping had been run as "mosaic-legacy"


def _lines(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _study(tmp_path: Path, digest: str | None) -> Path:
    """A study with OLD's records (``digest``: their hash; None: from before hashes), its
    errors file, another method's records and judged lines of both."""
    hashed = {"config_hash": digest} if digest else {}
    rows = [{"method": OLD, "id": q, "answer": a, "f1": 0.5} | hashed for q, a in ("ab", "cd")]
    _lines(tmp_path / "mosaic-legacy.jsonl", rows)
    _lines(tmp_path / "mosaic-legacy.errors.jsonl", [{"method": OLD, "id": "e", "error": "x"}])
    _lines(tmp_path / "naive.jsonl", [{"method": "naive", "id": "a", "answer": "b"}])
    verdicts = [{"method": m, "id": "a", "semantic": 1.0} for m in (OLD, "naive")]
    _lines(tmp_path / "semantic" / "verdicts.jsonl", verdicts)
    entry = {"file": "mosaic-legacy.jsonl", "records": 2} | hashed
    manifest = {"dataset": "toy", "methods": {OLD: entry, "naive": {"file": "naive.jsonl"}}}
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    return tmp_path


def _snapshot(directory: Path) -> dict[str, str]:
    return {str(p.relative_to(directory)): p.read_text() for p in directory.rglob("*.json*")}


def test_records_manifest_errors_and_judged_lines_take_the_new_name(tmp_path):
    study = _study(tmp_path, hash_under(NEW, OLD))
    done = rename_method(study, OLD, NEW)
    assert (done.records, done.unchecked, done.judged) == (2, 0, 1)
    assert "2 records (2 checked" in done.line()
    assert not (study / "mosaic-legacy.jsonl").exists()
    records = read_jsonl(study / "mosaic_signals.jsonl")
    assert [(r["method"], r["config_hash"], r["answer"]) for r in records] == [
        (NEW, config_hash(NEW), "b"),
        (NEW, config_hash(NEW), "d"),
    ]
    assert read_jsonl(study / "mosaic_signals.errors.jsonl")[0]["method"] == NEW
    assert not (study / "mosaic-legacy.errors.jsonl").exists()
    methods = json.loads((study / MANIFEST).read_text())["methods"]
    assert OLD not in methods and methods["naive"] == {"file": "naive.jsonl"}
    assert methods[NEW] == {
        "file": "mosaic_signals.jsonl",
        "records": 2,
        "config_hash": config_hash(NEW),
        "renamed_from": OLD,
    }
    verdicts = read_jsonl(study / "semantic" / "verdicts.jsonl")
    assert [v["method"] for v in verdicts] == [NEW, "naive"]
    assert read_jsonl(study / "naive.jsonl") == [{"method": "naive", "id": "a", "answer": "b"}]


def test_records_from_before_hashes_are_renamed_unchecked_and_get_no_hash(tmp_path):
    study = _study(tmp_path, None)
    done = rename_method(study, OLD, NEW)
    assert (done.records, done.unchecked) == (2, 2) and "2 from before" in done.line()
    assert all("config_hash" not in r for r in read_jsonl(study / "mosaic_signals.jsonl"))
    assert "config_hash" not in json.loads((study / MANIFEST).read_text())["methods"][NEW]


@pytest.mark.parametrize(
    ("digest", "existing", "message"),
    [
        (hash_under("mosaic", OLD), None, "rename only renames, rerun instead"),
        (config_hash(NEW), None, "rename only renames"),  # NEW's hash under its own name
        (hash_under(NEW, OLD), "mosaic_signals.jsonl", "would merge them"),
    ],
)
def test_another_configuration_or_an_existing_name_is_refused_and_nothing_written(
    tmp_path, digest, existing, message
):
    study = _study(tmp_path, digest)
    if existing:
        _lines(study / existing, [{"method": NEW, "id": "z"}])
    before = _snapshot(study)
    with pytest.raises(ResultsError, match=message):
        rename_method(study, OLD, NEW)
    assert _snapshot(study) == before


def test_a_missing_method_is_a_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no records of 'absent'"):
        rename_method(tmp_path, "absent", NEW)


def test_the_command_renames_in_order_and_refuses_a_bad_pair_in_one_line(
    tmp_path, monkeypatch, capsys
):
    from ace_lab.cli import main

    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(tmp_path))
    _study(tmp_path / "s", hash_under(NEW, OLD))
    assert main(["rename", "--study", "s", "mosaic-legacy=mosaic:signals"]) == 0
    assert capsys.readouterr().out.startswith("mosaic-legacy → mosaic:signals: 2 records")
    assert main(["rename", "--study", "s", "mosaic:signals"]) == 2
    assert main(["rename", "--study", "s", "mosaic-legacy=mosaic:signals"]) == 1
    errors = capsys.readouterr().err.strip().splitlines()
    assert errors[0].startswith("ace-lab: error: 'mosaic:signals': write OLD=NEW")
    assert errors[1].startswith("ace-lab: error: ") and len(errors) == 2
