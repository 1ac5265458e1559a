"""ace_lab.cli's error boundary, end to end: every bad input through ``python -m ace_lab``.

Each case must print exactly one line on stderr (``ace-lab: error: ...``), no traceback, exit
with its status (2: the command line is wrong, 1: anything else) and write nothing: neither in
the isolated results/figures/graphs/cache/user-data folders the test points the settings at,
nor in the repository's ``results/``, ``figures/`` and ``data/``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ace_lab.config import REPO_ROOT
from tests.support.paths import REPO

ROOT = REPO_ROOT or REPO
#: The loopback discard port: nothing listens there, so a connection is refused at once.
DEAD_URL = "http://127.0.0.1:9/v1"


def _tree_state(*roots: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file under ``roots``: a write anywhere changes it."""
    state = {}
    for root in roots:
        for folder, _, files in os.walk(root):
            for name in files:
                path = Path(folder, name)
                stat = path.stat()
                state[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return state


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Isolated settings folders, a data directory with a broken set and a broken corpus."""
    root = tmp_path_factory.mktemp("cli_errors")
    # A set without committed slices, so its full copy is read (and found broken).
    broken = root / "broken_data" / "hotpotqa_train_sample100_hipporag"
    broken.mkdir(parents=True)
    (broken / "corpus.json").write_text('[{"title": "A", "text": "unterminated', encoding="utf-8")
    (broken / "questions.json").write_text("[]", encoding="utf-8")
    # A registered user corpus whose stored corpus.json was damaged after it was added.
    corpus = root / "user" / "corpora" / "notes"
    corpus.mkdir(parents=True)
    meta = {"format": 1, "name": "notes", "documents": 1, "questions": 0, "task": "open"}
    (corpus / "corpus_meta.json").write_text(json.dumps(meta), encoding="utf-8")
    (corpus / "corpus.json").write_text("{not json", encoding="utf-8")
    (corpus / "questions.json").write_text("[]", encoding="utf-8")
    return {"root": root, "broken_data": root / "broken_data", "user": root / "user"}


def _env(sandbox: dict[str, Path], **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACE_LAB_", "OPENAI_"))}
    root = sandbox["root"]
    env |= {
        f"ACE_LAB_{name.upper()}_DIR": str(root / name)
        for name in ("results", "figures", "graphs", "cache")
    }
    env |= {"ACE_LAB_USER_DATA": str(sandbox["user"]), "PYTHONWARNINGS": "ignore"}
    return env | extra


REMOTE = {"ACE_LAB_LLM_BASE_URL": DEAD_URL, "ACE_LAB_LLM_MODEL": "m"}
FAST_RETRIES = {"ACE_LAB_LLM_MAX_RETRIES": "1", "ACE_LAB_LLM_RETRY_BACKOFF": "0.05"}

#: (case, arguments, extra environment, exit status, text the one line must hold)
CASES: list[tuple[str, list[str], dict[str, str], int, str]] = [
    (
        "unknown data set",
        ["run", "--methods", "hirag", "--dataset", "hotpotqa_dev", "--n", "2"],
        {},
        2,
        "unknown data set 'hotpotqa_dev'; did you mean hotpotqa_dev_sample200",
    ),
    (
        "n larger than the slice",
        ["run", "--methods", "hirag", "--dataset", "toy", "--n", "50"],
        {},
        1,
        "toy: n=50 is more than its 8 questions",
    ),
    (
        "unknown tier",
        ["ask", "--method", "hirag", "--dataset", "toy", "--n", "2", "--model", "qwen9b", "who?"],
        {},
        2,
        "unknown model tier 'qwen9b'",
    ),
    (
        "unknown tier in the environment",
        ["run", "--methods", "hirag", "--dataset", "toy", "--n", "2"],
        {"ACE_LAB_LLM_TIER": "big"},
        1,
        "unknown model tier 'big' (ACE_LAB_LLM_TIER)",
    ),
    (
        "malformed base URL",
        ["run", "--methods", "hirag", "--dataset", "toy", "--n", "2"],
        {"ACE_LAB_LLM_BASE_URL": "localhost:8000/v1", "ACE_LAB_LLM_MODEL": "m"},
        1,
        "ACE_LAB_LLM_BASE_URL='localhost:8000/v1' is not an endpoint URL",
    ),
    (
        "unreachable endpoint",
        ["run", "--methods", "hirag", "--dataset", "toy", "--n", "2"],
        REMOTE | FAST_RETRIES,
        1,
        f"cannot reach the LLM endpoint {DEAD_URL} (connection refused, 2 attempts)",
    ),
    (
        "corrupt benchmark file",
        ["run", "--methods", "hirag", "--dataset", "hotpotqa_train_sample100_hipporag", "--n", "2"],
        {"ACE_LAB_DATA": ""},
        1,
        "hotpotqa_train_sample100_hipporag/corpus.json: corrupt JSON",
    ),
    (
        "corrupt user corpus",
        ["ask", "--method", "hirag", "--dataset", "notes", "who?"],
        {},
        1,
        "notes/corpus.json",
    ),
    (
        "unknown method",
        ["run", "--methods", "hiraq", "--dataset", "toy", "--n", "2"],
        {},
        2,
        "unknown method 'hiraq'; did you mean hirag",
    ),
    (
        "unknown method under --estimate",
        ["run", "--estimate", "--methods", "hirag", "ace-ful", "--dataset", "toy", "--n", "2"],
        {},
        2,
        "unknown ACE method 'ace-ful'; did you mean ace-full?",
    ),
    (
        "question id and free text",
        ["ask", "--method", "hirag", "--dataset", "toy", "--question-id", "t1", "who?"],
        {},
        2,
        "give --question-id or a free-text question, not both",
    ),
    (
        "corpus add of a missing folder",
        ["corpus", "add", "mine", "/nonexistent/ace_lab/folder"],
        {},
        2,
        "corpus folder or file /nonexistent/ace_lab/folder does not exist",
    ),
    (
        "argparse's own error",
        ["run", "--methods", "hirag", "--dataset", "toy", "--n", "0"],
        {},
        2,
        "argument --n: must be >= 1, got 0",
    ),
]


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ace_lab", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_bad_input_is_one_line_a_status_and_no_write(sandbox):
    watched = [ROOT / "results", ROOT / "figures", ROOT / "data", sandbox["root"]]
    before = _tree_state(*watched)
    envs = []
    for _, _, extra, _, _ in CASES:
        if extra.get("ACE_LAB_DATA") == "":
            extra = extra | {"ACE_LAB_DATA": str(sandbox["broken_data"])}
        envs.append(_env(sandbox, **extra))
    # Two at a time: each is mostly interpreter start-up and imports.
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(_run, [c[1] for c in CASES], envs))
    problems = []
    for (case, args, _, status, text), proc in zip(CASES, done, strict=True):
        lines = proc.stderr.splitlines()
        if (
            proc.returncode != status
            or len(lines) != 1
            or "Traceback" in proc.stderr
            or not lines[0].startswith("ace-lab: error: ")
            or text not in lines[0]
        ):
            problems.append(f"{case}: ace-lab {' '.join(args)} -> {proc.returncode}\n{proc.stderr}")
    assert not problems, "\n\n".join(problems)
    assert _tree_state(*watched) == before


def test_debug_shows_the_traceback_of_a_known_error(sandbox):
    args = ["--debug", "run", "--methods", "hiraq", "--dataset", "toy", "--n", "2"]
    proc = _run(args, _env(sandbox))
    assert proc.returncode == 2
    assert "Traceback" in proc.stderr and "UsageError: unknown method 'hiraq'" in proc.stderr
    # --debug is also accepted after the command.
    proc = _run(["methods", "bogus", "--debug"], _env(sandbox))
    assert proc.returncode == 2 and "Traceback" in proc.stderr
