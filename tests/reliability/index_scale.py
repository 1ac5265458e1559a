"""Memory and time to build the hybrid index over the whole 2Wiki corpus (issue 13, item 7).

``HybridIndex.build`` over the 6,119 passages of ``2wikimultihopqa_hipporag1000`` (the first 500
in the fast version) with the real MiniLM embedder and no vector cache, so every passage is
embedded. The build runs in a fresh process (``python -m tests.reliability.index_scale N``) so
that its peak resident memory (``getrusage``'s ``ru_maxrss``) is the build's alone; the row holds
when the build succeeds, indexes every passage, answers a search, and its peak stays under
:data:`CEILING_MB`. The note gives the seconds and the megabytes.

The corpus is shared data outside the repository: without it the row says so and the test skips.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ROW = "hybrid index over the 2Wiki corpus"
DATASET = "2wikimultihopqa_hipporag1000"
#: Peak resident memory the build must stay under (model, vectors, BM25 and Python included).
CEILING_MB = 4096
FAST_PASSAGES = 500


def missing_reason() -> str | None:
    """Why the corpus cannot be indexed here, or None when it can."""
    from ace_lab.data import DataError, list_datasets

    try:
        present = DATASET in list_datasets()
    except DataError as exc:
        return f"no benchmark data directory ({exc})"
    return None if present else f"{DATASET} is not in the shared data (set ACE_LAB_DATA)"


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def build_once(limit: int | None) -> dict[str, Any]:
    """In this process: build the index, time it and measure the memory (see module doc)."""
    from ace_lab.data import load_dataset
    from ace_lab.embed import get_embedder
    from ace_lab.index import HybridIndex

    passages = load_dataset(DATASET).passages
    passages = passages[:limit] if limit else passages
    embedder = get_embedder()
    embedder.encode(["load the model before the clock starts"])
    before_mb = _rss_mb()
    began = time.perf_counter()
    index = HybridIndex.build(
        [p.id for p in passages], [p.text for p in passages], embedder, False, cache=False
    )
    seconds = time.perf_counter() - began
    hits = index.search(passages[-1].text[:200], k=5)
    return {
        "passages": len(passages),
        "indexed": len(index),
        "found_itself": bool(hits) and hits[0].id == passages[-1].id,
        "seconds": round(seconds, 1),
        "rss_before_mb": round(before_mb),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def measure(full: bool) -> list[dict[str, Any]]:
    reason = missing_reason()
    if reason is not None:
        return [
            {"property": ROW, "attempts": 0, "held": 0, "failed": 0, "note": f"skipped: {reason}"}
        ]
    limit = 0 if full else FAST_PASSAGES
    env = dict(os.environ, TOKENIZERS_PARALLELISM="false")
    proc = subprocess.run(
        [sys.executable, "-m", "tests.reliability.index_scale", str(limit)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1800,
        env=env,
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        return [{"property": ROW, "attempts": 1, "held": 0, "failed": 1, "note": tail[0]}]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    held = out["indexed"] == out["passages"] and out["found_itself"] and out["peak_mb"] < CEILING_MB
    note = (
        f"{out['passages']} passages, MiniLM, no vector cache: built in {out['seconds']} s, "
        f"peak RSS {out['peak_mb']} MB ({out['rss_before_mb']} MB with the model loaded, "
        f"ceiling {CEILING_MB} MB)"
        + ("" if out["found_itself"] else "; a passage's own text did not find it")
    )
    return [
        {"property": ROW, "attempts": 1, "held": int(held), "failed": int(not held), "note": note}
    ]


if __name__ == "__main__":
    print(json.dumps(build_once(int(sys.argv[1]) or None)))
