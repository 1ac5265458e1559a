"""The fetch manifest: where each benchmark set's upstream files live and how to normalise them.

``fetch_manifest.json`` (next to this module, shipped with the package) is generated from the
data directory's ``MANIFEST.json`` (provenance: repository, commit, path, blob id and sha256 of
every upstream and normalised file) by::

    python -m ace_lab.data.fetch_manifest ../shared/data/MANIFEST.json

For every set in :data:`~ace_lab.data.registry.DATASETS` it lists

* ``fetch``: whether ``ace-lab data fetch`` can build it; when false, ``reason`` says why;
* ``files``: the upstream files, each with its public ``url``
  (``https://raw.githubusercontent.com/<repo>/<commit>/<path>``), ``sha256``, ``bytes`` and
  ``role`` (what the normaliser reads it as);
* ``normaliser``: the :data:`ace_lab.data.normalise.NORMALISERS` entry that turns the files into
  the set's ``corpus.json`` and ``questions.json``;
* ``outputs``: the sha256 and size of each normalised file of the *full* set, so a fetched set is
  byte-identical to the one the manifest describes or the fetch fails.

Only sets whose normaliser was checked against real upstream records are fetchable
(:data:`FETCHABLE`); the others say why not (:data:`NOT_FETCHABLE`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from ace_lab.data.records import DataError
from ace_lab.data.registry import DATASETS, TOY

#: The generated manifest, package data next to this module.
MANIFEST_FILE = Path(__file__).with_name("fetch_manifest.json")
#: Where GitHub serves a file of a repository at a commit.
RAW_BASE = "https://raw.githubusercontent.com"
#: The command that regenerates :data:`MANIFEST_FILE` (recorded in its header).
GENERATOR = "python -m ace_lab.data.fetch_manifest ../shared/data/MANIFEST.json"
FORMAT = 1

#: Fetchable sets: the normaliser and the role of each upstream file (by its raw/ name).
FETCHABLE: dict[str, tuple[str, dict[str, str]]] = {
    "hotpotqa_train_sample100_hipporag": (
        "hipporag_hotpotqa",
        {
            "hipporag_hotpotqa_train.json": "questions",
            "hipporag_hotpotqa_train_corpus.json": "corpus",
        },
    ),
    "musique_train_sample100_hipporag": (
        "hipporag_musique",
        {
            "hipporag_musique_train.json": "questions",
            "hipporag_musique_train_corpus.json": "corpus",
        },
    ),
    "hotpotqa_dev_sample200": ("migres_hotpotqa", {"migres_hotpot.json": "questions"}),
}

_UNVERIFIED = "no upstream file of it was available to verify a normaliser against"

#: Why a known set is not fetchable (yet): each needs a normaliser verified on its upstream.
NOT_FETCHABLE: dict[str, str] = {
    "2wikimultihopqa_hipporag1000": (
        "its supporting passages are derived from the evidence triples by a title-matching "
        "heuristic that has not been reproduced and verified here"
    ),
    "musique_dev_sample292": (
        "it merges two upstream files (KAG, MIGRES) and flags HippoRAG-1000 membership; that "
        "merge has not been reproduced and verified here"
    ),
    "graphragbench_medical": f"its upstream is Parquet and {_UNVERIFIED}",
    "graphragbench_novel": f"its upstream is Parquet and {_UNVERIFIED}",
    "ultradomain_mix": (
        "its questions are recovered from pairwise-judge prompts and a generated-question text "
        f"file, and {_UNVERIFIED}"
    ),
    "msgraphrag_podcast": f"its upstream is a zip of transcripts and {_UNVERIFIED}",
    "msgraphrag_msft_transcripts": f"its upstream is a zip of transcripts and {_UNVERIFIED}",
    "multihoprag_small20": _UNVERIFIED,
}


def raw_url(repo: str, commit: str, path: str) -> str:
    """The public URL of ``path`` in GitHub repository ``repo`` at ``commit``."""
    return f"{RAW_BASE}/{repo}/{commit}/{quote(path, safe='/')}"


def _source_of(
    raw_name: str, blob: str | None, sources: Sequence[Mapping[str, Any]]
) -> dict[str, str] | None:
    """The upstream source of raw file ``raw_name``: same blob id, else the same base name
    (``"Kevin_Scott_Questions.csv"`` is ``data/Kevin Scott Questions.csv``; sources joined by
    ``" + "`` are tried one by one, and a ``<prefix>_`` in front of the raw name is allowed);
    None when no source matches."""
    for source in sources:
        if blob and source.get("blob") == blob:
            return {"repo": source["repo"], "commit": source["commit"], "path": source["path"]}
    for source in sources:
        for path in str(source.get("path", "")).split(" + "):
            base = PurePosixPath(path.strip()).name.replace(" ", "_")
            if base and (raw_name == base or raw_name.endswith("_" + base)):
                return {"repo": source["repo"], "commit": source["commit"], "path": path.strip()}
    return None


def _set_entry(name: str, info: Mapping[str, Any]) -> dict[str, Any]:
    files: list[dict[str, Any]] = []
    outputs: list[dict[str, Any]] = []
    normaliser, roles = FETCHABLE.get(name, (None, {}))
    for record in info.get("files", []):
        path = PurePosixPath(record["path"])
        if path.parent.name == "raw":
            source = _source_of(path.name, record.get("git_blob"), info.get("sources", []))
            if source is None and path.name in roles:
                raise DataError(f"MANIFEST.json: {name}: no upstream source for {path.name!r}")
            files.append(
                {
                    "name": path.name,
                    "role": roles.get(path.name, "other"),
                    "url": source and raw_url(source["repo"], source["commit"], source["path"]),
                    "sha256": record["sha256"],
                    "bytes": record["bytes"],
                }
            )
        else:
            outputs.append(
                {"name": path.name, "sha256": record["sha256"], "bytes": record["bytes"]}
            )
    entry: dict[str, Any] = {"fetch": normaliser is not None}
    if normaliser is None:
        entry["reason"] = NOT_FETCHABLE.get(name, _UNVERIFIED)
    else:
        missing = sorted(set(roles) - {f["name"] for f in files})
        if missing:
            raise DataError(f"MANIFEST.json: {name}: no raw file(s) {', '.join(missing)}")
        files = [f for f in files if f["role"] != "other"]
        entry["normaliser"] = normaliser
    entry["files"] = files
    entry["outputs"] = outputs
    if "license" in info:
        entry["license"] = info["license"]
    return entry


def build_fetch_manifest(source: Mapping[str, Any], source_sha256: str = "") -> dict[str, Any]:
    """The fetch manifest of every registered set (toy excluded) from ``MANIFEST.json``'s data."""
    sets: dict[str, Any] = {}
    for name, spec in DATASETS.items():
        if name == TOY:
            continue
        if spec.folder not in source:
            raise DataError(f"MANIFEST.json: no entry for registered set {spec.folder!r}")
        sets[name] = _set_entry(name, source[spec.folder])
    header = {"generated_by": GENERATOR, "format": FORMAT, "source_manifest_sha256": source_sha256}
    return {"header": header, "sets": sets}


def load_fetch_manifest(path: Path | None = None) -> dict[str, Any]:
    """The fetch manifest at ``path`` (default: the packaged one), checked for its shape."""
    path = path or MANIFEST_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"{path}: unreadable fetch manifest: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("sets"), dict):
        raise DataError(f"{path}: not a fetch manifest (no 'sets' object)")
    return data


def render(manifest: Mapping[str, Any]) -> str:
    """The manifest as committed: indented JSON, one trailing newline."""
    return json.dumps(manifest, ensure_ascii=False, indent=1) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate :data:`MANIFEST_FILE` (or ``--out``) from a data directory's MANIFEST.json."""
    parser = argparse.ArgumentParser(prog="python -m ace_lab.data.fetch_manifest")
    parser.add_argument("manifest", type=Path, help="the data directory's MANIFEST.json")
    parser.add_argument("--out", type=Path, default=MANIFEST_FILE)
    args = parser.parse_args(argv)
    raw = args.manifest.read_bytes()
    manifest = build_fetch_manifest(json.loads(raw), hashlib.sha256(raw).hexdigest())
    args.out.write_text(render(manifest), encoding="utf-8")
    fetchable = [name for name, entry in manifest["sets"].items() if entry["fetch"]]
    print(f"wrote {args.out}: {len(manifest['sets'])} sets, fetchable: {', '.join(fetchable)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
