"""Tests for ace_lab.embed.cache: persistence, per-model keys, thread and process safety."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ace_lab.embed import SentenceTransformerEmbedder, VectorCache, embed
from tests.support.embedders import CountingEmbedder, fake_vectors


def test_cache_persists_across_instances(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    path = tmp_path / "cache" / "embeddings.sqlite"
    with VectorCache(path) as cache:
        before = embed(["persisted text"], minilm, cache=cache, progress=False)
    counting = CountingEmbedder(minilm)
    with VectorCache.in_dir(path.parent) as reopened:
        after = embed(["persisted text"], counting, cache=reopened, progress=False)
        assert reopened.count(minilm.model_id) == 1
    assert counting.calls == []
    np.testing.assert_array_equal(before, after)


def test_cache_keys_differ_per_model_id(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    cache = VectorCache(tmp_path / "e.sqlite")
    a, b = CountingEmbedder(minilm, "model-a"), CountingEmbedder(minilm, "model-b")
    embed(["shared text"], a, cache=cache, progress=False)
    embed(["shared text"], b, cache=cache, progress=False)
    assert a.encoded == ["shared text"] and b.encoded == ["shared text"]
    assert cache.count("model-a") == cache.count("model-b") == 1
    assert cache.get_many("model-c", ["shared text"]) == {}


# --- cache concurrency (deterministic vectors, no model) -------------------------------------


def _write_from_process(path: str, worker: int) -> None:
    texts = [f"w{worker}-{i}" for i in range(200)]
    cache = VectorCache(path)
    for start in range(0, len(texts), 20):
        batch = texts[start : start + 20]
        cache.put_many("fake", batch, fake_vectors(batch))
    cache.close()


def test_cache_is_safe_across_threads_and_processes(tmp_path: Path) -> None:
    path = tmp_path / "e.sqlite"
    cache = VectorCache(path)
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda w: _write_from_process(str(path), w), range(4)))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_from_process, args=(str(path), w)) for w in (4, 5)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    assert cache.count("fake") == 6 * 200
    got = cache.get_many("fake", ["w5-7", "w0-199"])
    np.testing.assert_array_equal(got["w5-7"], fake_vectors(["w5-7"])[0])
