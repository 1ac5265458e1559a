"""Fetching a full benchmark set from its public source: download, verify, normalise.

:func:`fetch_dataset` reads the set's entry in the fetch manifest
(:mod:`ace_lab.data.fetch_manifest`), downloads each upstream file into
``<root>/<name>/raw/`` and checks its sha256, then normalises the files
(:mod:`ace_lab.data.normalise`) into ``<root>/<name>/corpus.json`` and ``questions.json`` and
checks those against the sha256 the manifest records for the full set. Every file is written
atomically (a temporary file in the same folder, then a rename), so an interrupted fetch never
leaves a half-written file under its final name; a file that fails its check is deleted.

``<root>`` is ``data_dir`` when given, else ``ACE_LAB_DATA``, else
:func:`ace_lab.data.registry.fetched_data_dir` (``<user data dir>/benchmarks``), which
:func:`~ace_lab.data.registry.resolve_data_dir` searches, so a fetched set loads like any other.
A file already in ``raw/`` with the right sha256 is not downloaded again, so without a network
the files can be placed there by hand; a set whose normalised files already verify is not
touched at all.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from tqdm.auto import tqdm

from ace_lab.data.fetch_manifest import load_fetch_manifest
from ace_lab.data.normalise import NORMALISERS, serialise
from ace_lab.data.records import DataError
from ace_lab.data.registry import fetched_data_dir

#: Seconds to wait for a connection or for the next bytes of a download.
DEFAULT_TIMEOUT_S = 30.0
#: A mirror serving every upstream file by its raw/ name (``https://…/`` or ``file:///…/``).
MIRROR_ENV = "ACE_LAB_FETCH_MIRROR"
_CHUNK = 1 << 16


def fetch_root(data_dir: Path | None = None) -> Path:
    """The folder fetched sets go into: ``data_dir``, else ``ACE_LAB_DATA``, else
    :func:`~ace_lab.data.registry.fetched_data_dir`."""
    if data_dir is not None:
        return Path(data_dir).expanduser()
    explicit = os.environ.get("ACE_LAB_DATA")
    return Path(explicit).expanduser() if explicit else fetched_data_dir()


def fetchable_sets(manifest: Mapping[str, Any] | Path | None = None) -> list[str]:
    """Names of the sets :func:`fetch_dataset` can build, in manifest order."""
    sets = _manifest(manifest)["sets"]
    return [name for name, entry in sets.items() if entry.get("fetch")]


def fetch_dataset(
    name: str,
    data_dir: Path | None = None,
    progress: bool = True,
    *,
    manifest: Mapping[str, Any] | Path | None = None,
    base_url: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> Path:
    """Download, verify and normalise benchmark set ``name``; the folder it is in.

    ``manifest`` replaces the packaged fetch manifest (a dict or a path); ``base_url`` (default
    ``ACE_LAB_FETCH_MIRROR``) fetches every file from ``<base_url>/<raw name>`` instead of its
    upstream URL. Raises a one-line :class:`DataError` when the set is unknown or not fetchable,
    when there is no network, when a file's sha256 is wrong, or when the normalised files differ
    from the ones the manifest records.
    """
    sets = _manifest(manifest)["sets"]
    if name not in sets:
        known = ", ".join(n for n, e in sets.items() if e.get("fetch")) or "none"
        raise DataError(f"cannot fetch {name}: not a known benchmark set (fetchable: {known})")
    entry = sets[name]
    if not entry.get("fetch"):
        reason = entry.get("reason", "it has no verified normaliser")
        raise DataError(f"cannot fetch {name}: not fetchable, {reason}")
    target = fetch_root(data_dir) / name
    if _outputs_verified(target, entry):
        return target
    raw_dir = target / "raw"
    mirror = base_url if base_url is not None else os.environ.get(MIRROR_ENV) or None
    for spec in entry["files"]:
        path = raw_dir / spec["name"]
        if path.is_file() and _sha256_file(path) == spec["sha256"]:
            continue
        url = f"{mirror.rstrip('/')}/{quote(spec['name'])}" if mirror else spec["url"]
        _download(name, url, path, spec, timeout=timeout, progress=progress)
    _normalise(name, target, entry)
    return target


# --------------------------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------------------------


def _manifest(manifest: Mapping[str, Any] | Path | None) -> Mapping[str, Any]:
    if manifest is None or isinstance(manifest, Path):
        return load_fetch_manifest(manifest)
    if not isinstance(manifest.get("sets"), Mapping):
        raise DataError("not a fetch manifest (no 'sets' object)")
    return manifest


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _outputs_verified(target: Path, entry: Mapping[str, Any]) -> bool:
    """Whether every normalised file of the set is there with its recorded sha256."""
    outputs = entry.get("outputs") or []
    return bool(outputs) and all(
        (target / out["name"]).is_file() and _sha256_file(target / out["name"]) == out["sha256"]
        for out in outputs
    )


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _download(
    name: str, url: str, dest: Path, spec: Mapping[str, Any], *, timeout: float, progress: bool
) -> None:
    """Download ``url`` to ``dest`` atomically, checking size and sha256 (deleted if wrong)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    expected_bytes = spec.get("bytes")
    handle, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    try:
        with (
            os.fdopen(handle, "wb") as out,
            urllib.request.urlopen(url, timeout=timeout) as response,
            tqdm(
                total=expected_bytes,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                desc=f"{name}/{dest.name}",
                disable=not progress,
                leave=False,
            ) as bar,
        ):
            size = 0
            while chunk := response.read(_CHUNK):
                size += len(chunk)
                if expected_bytes is not None and size > expected_bytes:
                    raise DataError(
                        f"cannot fetch {name}: {url} is larger than the recorded "
                        f"{expected_bytes} bytes (download deleted)"
                    )
                digest.update(chunk)
                out.write(chunk)
                bar.update(len(chunk))
        if digest.hexdigest() != spec["sha256"]:
            raise DataError(
                f"cannot fetch {name}: {dest.name} from {url} has sha256 "
                f"{digest.hexdigest()[:16]}…, expected {spec['sha256'][:16]}… (download deleted)"
            )
        os.replace(tmp, dest)
    except urllib.error.HTTPError as exc:
        raise DataError(
            f"cannot download {name}: {url} answered HTTP {exc.code} {_one_line(exc.reason)}"
        ) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
        parts = urlsplit(url)
        host = parts.netloc or url
        reason = _one_line(getattr(exc, "reason", None) or exc) or type(exc).__name__
        raise DataError(
            f"cannot download {name}: no network access to {host} ({reason}); "
            f"place the files in {dest.parent} or set ACE_LAB_DATA"
        ) from None
    finally:
        tmp.unlink(missing_ok=True)


def _write_atomic(path: Path, data: bytes) -> None:
    handle, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp_name, path)
    finally:
        Path(tmp_name).unlink(missing_ok=True)


def _normalise(name: str, target: Path, entry: Mapping[str, Any]) -> None:
    """Normalise the verified raw files into the set's files, each checked before any is
    written."""
    raw_dir = target / "raw"
    normaliser = NORMALISERS.get(entry.get("normaliser", ""))
    if normaliser is None:
        raise DataError(f"cannot normalise {name}: unknown normaliser {entry.get('normaliser')!r}")
    files = {spec["role"]: (raw_dir / spec["name"]).read_bytes() for spec in entry["files"]}
    try:
        records = normaliser(files)
    except DataError as exc:
        raise DataError(f"cannot normalise {name} from {raw_dir}: {exc}") from None
    ready: list[tuple[Path, bytes]] = []
    for out in entry["outputs"]:
        if out["name"] not in records:
            raise DataError(f"cannot normalise {name}: the normaliser gives no {out['name']}")
        data = serialise(records[out["name"]])
        if hashlib.sha256(data).hexdigest() != out["sha256"]:
            raise DataError(
                f"cannot normalise {name}: {out['name']} differs from the recorded sha256 (the "
                f"normaliser or the manifest is out of date); raw files kept in {raw_dir}"
            )
        ready.append((target / out["name"], data))
    for path, data in ready:
        _write_atomic(path, data)
