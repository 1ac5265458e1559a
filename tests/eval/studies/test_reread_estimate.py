"""ace_lab.eval.studies.reread_estimate and ``ace-lab reread --estimate``: a reread priced from
the prompts it would send, the server's tokens per word piece and the reader's ledger calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ace_lab.eval.studies.reread_estimate import estimate_reread, prompt_pieces, reader_call
from ace_lab.eval.studies.throughput import endpoint_identity
from ace_lab.llm.ledger_file import LedgerEntry, append_entry, ledger_path
from ace_lab.methods.reader import SHORT_MAX_TOKENS, SHORT_TAG
from ace_lab.tokens import count_tokens


def _record(i: int, method: str = "naive:b1500", **extra: object) -> dict:
    context = {"context_ids": ["p1", "ent:e"], "context_texts": ["A long passage " * 20, "x"]}
    question = {"question": f"Who founded town {i}?", "gold": ["x"]}
    return {"method": method, "id": f"q{i}"} | question | context | extra


def _write(directory: Path, stem: str, records: list[dict], manifest: dict | None = None) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    if manifest is not None:
        (directory / "manifest.json").write_text(json.dumps(manifest))
    (directory / f"{stem}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def test_a_reread_is_priced_from_its_prompts_the_server_s_ratio_and_the_ledger(settings):
    results = Path(settings.results_dir)
    manifest = {"dataset": "toy", "n": 4, "seed": 0, "task": "qa"}
    _write(results / "s", "naive_b1500", [_record(i) for i in range(4)], manifest)
    _write(results / "s", "hirag_b1500", [_record(i, "hirag:b1500") for i in range(2)])
    pieces = prompt_pieces(_record(0), "short")
    assert pieces > count_tokens("A long passage " * 20 + "x")  # template + context

    cold = estimate_reread("s", settings=settings, allow_probe=False).set_index("method")
    assert cold.loc["naive:b1500", "records to reread"] == 4
    assert cold.loc["naive:b1500", "output tokens"] == 4 * SHORT_MAX_TOKENS  # no ledger: bound
    expected = sum(prompt_pieces(_record(i), "short") for i in range(4))
    assert cold.loc["naive:b1500", "input tokens"] == expected
    assert "the reader's bound" in cold.loc["naive:b1500", "cost from"]

    # one record already reread, its prompt counted 1.5 tokens per word piece by the server;
    # three reader calls of this model in the ledger generated 4 tokens each (another
    # model's call is not this endpoint's)
    done = _record(0) | {"reader_input_tokens": round(1.5 * pieces)}
    _write(results / "s-reread-short", "naive_b1500", [done])
    identity = endpoint_identity(settings)
    for model in (identity, identity, identity, "another model"):
        entry = LedgerEntry("t", model, SHORT_TAG, 100, 4 if model == identity else 30, 0, 1.0)
        append_entry(ledger_path(settings.cache_dir), entry)
    warm = estimate_reread("s", settings=settings, allow_probe=False).set_index("method")
    assert warm.loc["naive:b1500", "records to reread"] == 3
    assert warm.loc["naive:b1500", "output tokens"] == 12
    left = sum(prompt_pieces(_record(i), "short") for i in range(1, 4))
    assert warm.loc["naive:b1500", "input tokens"] == pytest.approx(1.5 * left, abs=2)
    assert warm.loc["hirag:b1500", "input tokens"] == pytest.approx(
        1.5 * sum(prompt_pieces(_record(i), "short") for i in range(2)), abs=2
    )  # the ratio is the target study's, whichever run taught it
    assert "× 1.50 tokens/piece" in warm.loc["hirag:b1500", "cost from"]


def test_the_tagged_reader_is_priced_with_its_own_prompt_and_bound() -> None:
    short, short_tag, short_bound = reader_call("short", "Q?", "ctx")
    tagged, tag, bound = reader_call("tagged", "Q?", "ctx")
    assert (short_tag, short_bound) == (SHORT_TAG, SHORT_MAX_TOKENS)
    assert tag == "generate.qa" and bound > short_bound and tagged != short
    assert reader_call("json", "Q?", "ctx")[1] == "generate.qa.json"
