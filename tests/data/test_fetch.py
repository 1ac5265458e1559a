"""Fetching a set: download from a local HTTP server, sha256 checks, atomic writes, no network."""

from __future__ import annotations

import hashlib
import http.server
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from ace_lab.data import load_dataset, registry
from ace_lab.data.fetch import fetch_dataset, fetch_root, fetchable_sets
from ace_lab.data.normalise import NORMALISERS, serialise
from ace_lab.data.records import DataError
from tests.support.paths import TEST_DATA

FIXTURES = TEST_DATA / "fetch" / "hotpotqa_train_sample100_hipporag"
ROLES = {
    "hipporag_hotpotqa_train.json": "questions",
    "hipporag_hotpotqa_train_corpus.json": "corpus",
}
UNREACHABLE = "http://127.0.0.1:9"  # the discard port: nothing listens, the connection is refused


class _Server:
    """A local HTTP server in a thread serving :data:`FIXTURES`, counting the requests."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        server = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(self.path)
                super().do_GET()

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), partial(Handler, directory=str(FIXTURES))
        )
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def server() -> Iterator[_Server]:
    served = _Server()
    try:
        yield served
    finally:
        served.close()


def _manifest(base: str, **overrides: Any) -> dict[str, Any]:
    """A one-set manifest (``tiny``) of the HotpotQA fixture files served at ``base``."""
    files, raw = [], {}
    for name, role in ROLES.items():
        data = (FIXTURES / name).read_bytes()
        raw[role] = data
        files.append(
            {
                "name": name,
                "role": role,
                "url": f"{base}/{name}",
                "sha256": hashlib.sha256(data).hexdigest(),
                "bytes": len(data),
            }
        )
    normalised = NORMALISERS["hipporag_hotpotqa"](raw)
    outputs = [
        {"name": name, "sha256": hashlib.sha256(serialise(records)).hexdigest()}
        for name, records in normalised.items()
    ]
    entry = {"fetch": True, "normaliser": "hipporag_hotpotqa", "files": files, "outputs": outputs}
    entry.update(overrides)
    return {"sets": {"tiny": entry}}


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file())


def test_fetch_downloads_verifies_and_normalises(tmp_path: Path, server: _Server) -> None:
    target = fetch_dataset("tiny", tmp_path, progress=False, manifest=_manifest(server.url))
    assert target == tmp_path / "tiny"
    for name in ROLES:
        assert (target / "raw" / name).read_bytes() == (FIXTURES / name).read_bytes()
    raw = {role: (FIXTURES / name).read_bytes() for name, role in ROLES.items()}
    expected = NORMALISERS["hipporag_hotpotqa"](raw)
    assert (target / "corpus.json").read_bytes() == serialise(expected["corpus.json"])
    assert (target / "questions.json").read_bytes() == serialise(expected["questions.json"])
    assert _leftovers(target) == sorted(["corpus.json", "questions.json", *ROLES])  # no .part
    assert sorted(server.requests) == sorted(f"/{name}" for name in ROLES)


def test_a_verified_set_is_not_downloaded_again(tmp_path: Path, server: _Server) -> None:
    manifest = _manifest(server.url)
    fetch_dataset("tiny", tmp_path, progress=False, manifest=manifest)
    served = len(server.requests)
    fetch_dataset("tiny", tmp_path, progress=False, manifest=manifest)
    assert len(server.requests) == served
    # Verified raw files are reused: only the normalised files are rebuilt.
    (tmp_path / "tiny" / "corpus.json").unlink()
    fetch_dataset("tiny", tmp_path, progress=False, manifest=manifest)
    assert len(server.requests) == served
    assert (tmp_path / "tiny" / "corpus.json").is_file()


def test_a_wrong_raw_file_is_replaced(tmp_path: Path, server: _Server) -> None:
    raw = tmp_path / "tiny" / "raw"
    raw.mkdir(parents=True)
    (raw / "hipporag_hotpotqa_train.json").write_text("[]", encoding="utf-8")
    fetch_dataset("tiny", tmp_path, progress=False, manifest=_manifest(server.url))
    assert server.requests.count("/hipporag_hotpotqa_train.json") == 1
    fixture = (FIXTURES / "hipporag_hotpotqa_train.json").read_bytes()
    assert (raw / "hipporag_hotpotqa_train.json").read_bytes() == fixture


def test_a_wrong_sha256_is_refused_and_leaves_nothing(tmp_path: Path, server: _Server) -> None:
    manifest = _manifest(server.url)
    manifest["sets"]["tiny"]["files"][0]["sha256"] = "0" * 64
    with pytest.raises(DataError, match=r"has sha256 .* expected 0000") as info:
        fetch_dataset("tiny", tmp_path, progress=False, manifest=manifest)
    assert "\n" not in str(info.value)
    assert _leftovers(tmp_path) == []


def test_a_file_larger_than_recorded_is_refused(tmp_path: Path, server: _Server) -> None:
    manifest = _manifest(server.url)
    manifest["sets"]["tiny"]["files"][1]["bytes"] = 10
    with pytest.raises(DataError, match="larger than the recorded 10 bytes"):
        fetch_dataset("tiny", tmp_path, progress=False, manifest=manifest)
    assert _leftovers(tmp_path) == ["hipporag_hotpotqa_train.json"]  # the first file was good


def test_normalised_files_that_differ_from_the_record_are_not_written(
    tmp_path: Path, server: _Server
) -> None:
    manifest = _manifest(server.url)
    manifest["sets"]["tiny"]["outputs"][1]["sha256"] = "f" * 64
    with pytest.raises(DataError, match="differs from the recorded sha256"):
        fetch_dataset("tiny", tmp_path, progress=False, manifest=manifest)
    assert _leftovers(tmp_path / "tiny") == sorted(ROLES)  # raw kept, nothing normalised


def test_no_network_is_one_line_and_quick(tmp_path: Path) -> None:
    start = time.monotonic()
    with pytest.raises(DataError) as info:
        fetch_dataset("tiny", tmp_path, progress=False, manifest=_manifest(UNREACHABLE), timeout=5)
    message = str(info.value)
    assert time.monotonic() - start < 5
    assert message.startswith("cannot download tiny: no network access to 127.0.0.1:9 (")
    assert f"place the files in {tmp_path / 'tiny' / 'raw'} or set ACE_LAB_DATA" in message
    assert "\n" not in message
    assert _leftovers(tmp_path) == []


def test_base_url_overrides_the_manifest_urls(tmp_path: Path, server: _Server) -> None:
    manifest = _manifest(UNREACHABLE)
    fetch_dataset("tiny", tmp_path, progress=False, manifest=manifest, base_url=server.url + "/")
    assert sorted(server.requests) == sorted(f"/{name}" for name in ROLES)


def test_a_mirror_folder_can_serve_the_files(tmp_path: Path) -> None:
    mirror = FIXTURES.resolve().as_uri()
    target = fetch_dataset(
        "tiny", tmp_path, progress=False, manifest=_manifest(UNREACHABLE), base_url=mirror
    )
    assert (target / "questions.json").is_file()


def test_http_errors_name_the_url(tmp_path: Path, server: _Server) -> None:
    manifest = _manifest(server.url)
    manifest["sets"]["tiny"]["files"][0]["url"] = f"{server.url}/missing.json"
    with pytest.raises(DataError, match=r"missing\.json answered HTTP 404"):
        fetch_dataset("tiny", tmp_path, progress=False, manifest=manifest)


def test_unknown_and_unfetchable_sets_say_why(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"not a known benchmark set .*hotpotqa_dev_sample200"):
        fetch_dataset("nope", tmp_path)
    with pytest.raises(DataError, match="novel: not fetchable, its upstream is Parquet"):
        fetch_dataset("graphragbench_novel", tmp_path)
    assert _leftovers(tmp_path) == []


def test_the_packaged_manifest_lists_verified_sets_only() -> None:
    assert fetchable_sets() == [
        "hotpotqa_dev_sample200",
        "hotpotqa_train_sample100_hipporag",
        "musique_train_sample100_hipporag",
    ]


def test_fetch_root_and_resolve_data_dir_find_fetched_sets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ACE_LAB_DATA", raising=False)
    monkeypatch.setenv("ACE_LAB_USER_DATA", str(tmp_path / "user"))
    fetched = tmp_path / "user" / "benchmarks"
    assert fetch_root() == fetched
    assert fetch_root(tmp_path / "x") == tmp_path / "x"
    # A checkout with no ../shared/data beside it: fetched sets come before the repo's data/.
    repo = tmp_path / "clone" / "repo"
    (repo / "data").mkdir(parents=True)
    monkeypatch.setattr(registry, "_repo_root", lambda: repo)
    monkeypatch.chdir(repo)
    assert registry.resolve_data_dir() == (repo / "data").resolve()
    fetched.mkdir(parents=True)
    assert registry.resolve_data_dir() == fetched.resolve()
    monkeypatch.setenv("ACE_LAB_DATA", str(tmp_path))
    assert fetch_root() == tmp_path


def test_a_fetched_set_loads_like_any_other(tmp_path: Path, server: _Server) -> None:
    # The fixture files stand in for the set's upstream files (a few of its records).
    name = "hotpotqa_train_sample100_hipporag"
    manifest = {"sets": {name: _manifest(server.url)["sets"]["tiny"]}}
    fetch_dataset(name, tmp_path, progress=False, manifest=manifest)
    dataset = load_dataset(name, tmp_path)
    assert [q.id for q in dataset.questions] == ["5a77ec115542992a6e59dff7"]
    supports = dataset.questions[0].supporting_ids
    assert [dataset.passage(i).title for i in supports] == ["Alû", "Lilu (mythology)"]
