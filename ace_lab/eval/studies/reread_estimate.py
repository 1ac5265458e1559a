"""``ace-lab reread --estimate``: what re-answering a study's stored contexts will cost, before
any call.

Per run: the records still to reread (:func:`~ace_lab.eval.studies.reread.pending`), one reader
call each. Input tokens: each record's reader prompt, rendered exactly as the reread sends it
and counted in word pieces (:mod:`ace_lab.tokens`, within about ±20 % of a BPE count), scaled
by what the server counted per word piece on the records the target study already holds (a
resumed reread learns it from its own first calls). Output tokens: the mean of this machine's
recorded calls of the reader (its ledger tag, the configured model), else the reader's bound.
Calls, hours and the speed's source as every estimate prints them
(:func:`~ace_lab.eval.studies.estimate.priced`, the speed fitted on the reader's own ledger
calls where there are enough). A cold cache: a reread that repeats a cached call costs less.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ace_lab.config import Settings, load_settings
from ace_lab.eval.studies.estimate import priced
from ace_lab.eval.studies.jsonl import read_jsonl, record_files
from ace_lab.eval.studies.reread import pending, reread_study, stored_context
from ace_lab.eval.studies.study import study_dir
from ace_lab.eval.studies.throughput import endpoint_identity, in_flight
from ace_lab.llm.ledger_file import ledger_path, read_ledger
from ace_lab.methods.generate import answer_call
from ace_lab.methods.reader import SHORT_MAX_TOKENS, SHORT_TAG, short_messages
from ace_lab.tokens import count_tokens


def reader_call(reader: str, question: str, context: str) -> tuple[list[dict[str, str]], str, int]:
    """The QA answer call ``reader`` sends: its messages, ledger tag and generated-token bound."""
    if reader == "short":
        messages = short_messages(question, context or "(no context retrieved)")
        return messages, SHORT_TAG, SHORT_MAX_TOKENS
    return answer_call("qa", "json" if reader == "json" else "task", question, context)


def prompt_pieces(rec: dict[str, Any], reader: str) -> int:
    """Word pieces of the prompt ``reader`` is sent for record ``rec`` (its stored context)."""
    context = stored_context(rec["context_ids"], rec["context_texts"])
    messages, _, _ = reader_call(reader, str(rec["question"]), context)
    return sum(count_tokens(m["content"]) for m in messages)


def tokens_per_piece(done: Sequence[dict[str, Any]], reader: str) -> float:
    """The server's prompt tokens per word piece over already reread records (1.0 without)."""
    pairs = [
        (r["reader_input_tokens"], prompt_pieces(r, reader))
        for r in done
        if r.get("reader_input_tokens") and r.get("context_texts") is not None
    ]
    counted, pieces = (sum(p[i] for p in pairs) for i in (0, 1))
    return counted / pieces if pairs and pieces else 1.0


def output_per_call(settings: Settings, tag: str, bound: int) -> tuple[float, str]:
    """Mean generated tokens of this machine's ledger calls tagged ``tag`` by the configured
    endpoint's model, else ``bound``."""
    calls = read_ledger(ledger_path(settings.cache_dir), endpoint_identity(settings))
    found = [call.completion_tokens for call in calls if call.tag == tag]
    if found:
        return float(np.mean(found)), f"{len(found)} ledger calls"
    return float(bound), "the reader's bound"


def estimate_reread(
    study: str,
    reader: str = "short",
    methods: Sequence[str] | None = None,
    *,
    settings: Settings | None = None,
    allow_probe: bool = True,
) -> pd.DataFrame:
    """One row per run: records to reread, calls, tokens and hours (cold cache; module doc)."""
    settings = settings or load_settings()
    _, runs = pending(study, reader, methods, settings)
    _, tag, bound = reader_call(reader, "", "")
    out, out_from = output_per_call(settings, tag, bound)
    target = study_dir(reread_study(study, reader), settings)
    done = [r for path in record_files(target) for r in read_jsonl(path)] if target.is_dir() else []
    scale = tokens_per_piece(done, reader)
    scaled = "" if scale == 1.0 else f" × {scale:.2f} tokens/piece"
    rows, work = [], []
    for run in runs:
        pieces = sum(prompt_pieces(r, reader) for r in run.todo)
        rows.append(
            {
                "method": run.method,
                "records to reread": len(run.todo),
                "cost from": f"prompts in word pieces{scaled}; output: {out_from}",
            }
        )
        work.append((len(run.todo), pieces * scale, len(run.todo) * out))
    flight = in_flight(settings)
    return priced(rows, work, settings, flight, allow_probe, None, (tag,))
