"""Committed slices: the questions and passages of every slice the committed results use.

The full benchmark sets are never copied into the repository, but the slices the committed
graphs, results and notebooks were made on are, so a clone with no benchmark data beside it
reproduces them. One file per slice, ``data/slices/<slice_id>.json``, holding:

* ``dataset``, ``n``, ``seed``, ``setting``, ``variant``, ``slice_id`` (the :class:`Slice` fields);
* ``questions``: the normalised :class:`Question` records in slice order, every field including
  ``extra``; ``passages``: the :class:`Passage` records in corpus order (``meta`` where a passage
  has any); ``question_passage_ids``: each question's passages (empty for a pooled slice, whose
  every question has every passage: :mod:`ace_lab.data.pooled`);
* ``source`` and ``licence`` of the set (:mod:`ace_lab.data.provenance`) and ``regenerate``, the
  command that derives the file from the full set.

A file is exactly ``make_slice(load_dataset(dataset), n, seed)`` written as JSON with sorted keys
and one-space indents, so regenerating it is byte-identical::

    ace-lab data fetch hotpotqa_dev_sample200          # the full set, where a network is
    python -m ace_lab.data.write_slices                # every slice in COMMITTED_SLICES
    python -m ace_lab.data.write_slices --check        # are the files what the full sets give?

:func:`ace_lab.data.access.load_slice` reads them when the full set is absent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ace_lab.data.jsonfile import read_json
from ace_lab.data.loaders import load_dataset
from ace_lab.data.provenance import provenance_record
from ace_lab.data.records import POOLED, DataError, Passage, Question
from ace_lab.data.registry import _repo_root, pooled_base
from ace_lab.data.slices import Slice, make_slice

#: (dataset, n, seed) of every committed slice: the slices of ``data/graphs/`` and of every study
#: under ``results/`` (MuSiQue's n=10 studies and graph nest in its n=20 slice, which the router
#: study in ``results/router`` uses).
COMMITTED_SLICES: tuple[tuple[str, int, int], ...] = (
    ("hotpotqa_dev_sample200", 20, 0),
    ("2wikimultihopqa_hipporag1000", 20, 0),
    ("musique_dev_sample292", 20, 0),
    ("graphragbench_medical", 20, 0),
    ("graphragbench_novel", 20, 0),
    ("ultradomain_mix", 8, 0),
    # Pooled views (ace_lab.data.pooled): 100 questions against the whole corpus.
    ("hotpotqa_train_sample100_hipporag_pooled", 100, 0),
    ("musique_train_sample100_hipporag_pooled", 100, 0),
    ("graphragbench_medical_pooled", 100, 0),
)

_SLICE_ID = re.compile(r"^(?P<name>.+)-n(?P<n>[0-9]+)-s(?P<seed>[0-9]+)$")
_QUESTION_FIELDS = ("id", "question", "answer", "aliases", "supporting_ids", "type", "dataset")


def slices_dir() -> Path:
    """The folder of the committed slice files: the repository's ``data/slices``."""
    return _repo_root() / "data" / "slices"


def slice_path(slice_id: str, folder: Path | None = None) -> Path:
    return (folder or slices_dir()) / f"{slice_id}.json"


def regenerate_command(name: str, slice_id: str) -> str:
    """The command that derives a committed slice file from the full set."""
    return (
        f"ace-lab data fetch {pooled_base(name)} && python -m ace_lab.data.write_slices {slice_id}"
    )


def committed_slices(
    name: str | None = None, folder: Path | None = None
) -> list[tuple[str, int, int]]:
    """(dataset, n, seed) of every slice file present (of ``name`` only, when given), sorted."""
    root = folder or slices_dir()
    found = []
    for path in root.glob("*.json") if root.is_dir() else ():
        match = _SLICE_ID.match(path.stem)
        if match and (name is None or match["name"] == name):
            found.append((match["name"], int(match["n"]), int(match["seed"])))
    return sorted(found)


# --------------------------------------------------------------------------------------------
# Slice <-> JSON
# --------------------------------------------------------------------------------------------


def slice_record(sl: Slice) -> dict[str, Any]:
    """The JSON object of a committed slice file (module docstring)."""
    return {
        "dataset": sl.dataset_name,
        "n": sl.n,
        "seed": sl.seed,
        "setting": sl.setting,
        "variant": sl.variant,
        "slice_id": sl.slice_id,
        **provenance_record(sl.dataset_name),
        "regenerate": regenerate_command(sl.dataset_name, sl.slice_id),
        "questions": [_question_record(q) for q in sl.questions],
        "passages": [_passage_record(p) for p in sl.passages],
        "question_passage_ids": {}
        if sl.setting == POOLED  # every question has every passage: nothing to store
        else {q: list(ids) for q, ids in sl.question_passage_ids.items()},
    }


def slice_text(sl: Slice) -> str:
    """A slice file's exact text: sorted keys, one-space indents, Unicode kept, final newline."""
    return json.dumps(slice_record(sl), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def _question_record(q: Question) -> dict[str, Any]:
    rec = {f: getattr(q, f) for f in _QUESTION_FIELDS}
    return {
        **rec,
        "aliases": list(q.aliases),
        "supporting_ids": list(q.supporting_ids),
        "extra": dict(q.extra),
    }


def _passage_record(p: Passage) -> dict[str, Any]:
    rec: dict[str, Any] = {"id": p.id, "title": p.title, "text": p.text}
    if p.meta:
        rec["meta"] = dict(p.meta)
    return rec


def read_slice_file(path: Path) -> Slice:
    """The slice a committed file holds; a one-line DataError naming the file if it is broken."""
    rec = read_json(path)
    if not isinstance(rec, dict):
        raise DataError(f"{path}: a committed slice file must hold a JSON object")
    name = _typed(rec, "dataset", str, path)
    n, seed = _typed(rec, "n", int, path), _typed(rec, "seed", int, path)
    setting, variant = _typed(rec, "setting", str, path), _typed(rec, "variant", str, path)
    questions = [_question(q, path, i) for i, q in enumerate(_typed(rec, "questions", list, path))]
    passages = [_passage(p, path, i) for i, p in enumerate(_typed(rec, "passages", list, path))]
    groups = _typed(rec, "question_passage_ids", dict, path)
    known = {p.id for p in passages}
    ordered: dict[str, tuple[str, ...]] = {}
    everything = tuple(p.id for p in passages) if setting == POOLED else None
    for q in questions:  # in question order, as make_slice builds it
        ids = list(everything) if everything is not None and not groups else groups.get(q.id)
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise DataError(f"{path}: question_passage_ids[{q.id!r}] must be a list of strings")
        if not set(ids) <= known:
            raise DataError(f"{path}: question {q.id!r} names passages the file does not hold")
        ordered[q.id] = everything if everything is not None and not groups else tuple(ids)
    sl = Slice(name, questions, passages, seed, n, setting, ordered, variant)
    if sl.slice_id != path.stem or len(questions) != n:
        raise DataError(f"{path}: holds {sl.slice_id} with {len(questions)} questions")
    return sl


def _typed(rec: dict[str, Any], key: str, kind: type, path: Path, where: str = "") -> Any:
    value = rec.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise DataError(f"{path}: {where}field {key!r} must be {kind.__name__}")
    return value


def _optional_str(rec: dict[str, Any], key: str, path: Path, where: str) -> str | None:
    value = rec.get(key)
    if value is not None and not isinstance(value, str):
        raise DataError(f"{path}: {where}field {key!r} must be a string or null")
    return value


def _strings(rec: dict[str, Any], key: str, path: Path, where: str) -> tuple[str, ...]:
    value = _typed(rec, key, list, path, where)
    if not all(isinstance(v, str) for v in value):
        raise DataError(f"{path}: {where}field {key!r} must be a list of strings")
    return tuple(value)


def _question(rec: Any, path: Path, i: int) -> Question:
    where = f"questions[{i}]: "
    if not isinstance(rec, dict):
        raise DataError(f"{path}: {where}must be an object")
    return Question(
        id=_typed(rec, "id", str, path, where),
        question=_typed(rec, "question", str, path, where),
        answer=_optional_str(rec, "answer", path, where),
        aliases=_strings(rec, "aliases", path, where),
        supporting_ids=_strings(rec, "supporting_ids", path, where),
        type=_optional_str(rec, "type", path, where),
        dataset=_typed(rec, "dataset", str, path, where),
        extra=dict(_typed(rec, "extra", dict, path, where)),
    )


def _passage(rec: Any, path: Path, i: int) -> Passage:
    where = f"passages[{i}]: "
    if not isinstance(rec, dict):
        raise DataError(f"{path}: {where}must be an object")
    meta = rec.get("meta", {})
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise DataError(f"{path}: {where}field 'meta' must be an object of strings")
    return Passage(
        _typed(rec, "id", str, path, where),
        _typed(rec, "title", str, path, where),
        _typed(rec, "text", str, path, where),
        dict(meta),
    )


# --------------------------------------------------------------------------------------------
# Writing (from the full sets)
# --------------------------------------------------------------------------------------------


def derive_slice(name: str, n: int, seed: int = 0, data_dir: Path | None = None) -> Slice:
    """The slice from the full set (a one-line DataError naming the fetch command without it)."""
    from ace_lab.data.access import full_set_folder  # deferred: access builds on this module

    if full_set_folder(name, data_dir) is None:
        raise DataError(
            f"{name}: the full set is needed to derive its slices: "
            f"ace-lab data fetch {pooled_base(name)}"
        )
    return make_slice(load_dataset(name, data_dir), n, seed=seed)


def write_slices(
    slice_ids: Sequence[str] = (),
    data_dir: Path | None = None,
    folder: Path | None = None,
    check: bool = False,
) -> list[Path]:
    """(Re)write the committed slice files (all of :data:`COMMITTED_SLICES` when none is named)
    from the full sets; returns the files whose text changed. ``check`` writes nothing."""
    wanted = [_parse_slice_id(s) for s in slice_ids] or list(COMMITTED_SLICES)
    changed = []
    for name, n, seed in wanted:
        sl = derive_slice(name, n, seed, data_dir)
        path = slice_path(sl.slice_id, folder)
        text = slice_text(sl)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            changed.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    return changed


def _parse_slice_id(slice_id: str) -> tuple[str, int, int]:
    match = _SLICE_ID.match(slice_id)
    if match is None:
        raise DataError(f"{slice_id!r} is not a slice id (NAME-nN-sSEED)")
    return match["name"], int(match["n"]), int(match["seed"])
