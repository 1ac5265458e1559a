"""Run the judge calibration: every probe through the metric's own judge call, verdicts stored.

Each probe of :mod:`ace_lab.eval.judging.calibration_sets` is judged by the function the metric
itself calls, with its prompt and parsing (Evidence Recall, Context Relevancy, Faithfulness:
:mod:`ace_lab.eval.graphragbench.attribution`; Coverage and ACC's classification request:
:mod:`ace_lab.eval.graphragbench.judge`; semantic equivalence: ``ask_judge`` of
:mod:`ace_lab.eval.judging.equivalence`, without the fast paths that need no judge; pairwise
preference: :func:`ace_lab.eval.judging.judge.judge_pair`, both orders, the "overall" outcome).
A verdict that cannot be read (fallback, NaN, a statement the judge did not label, a tie) is
stored as ``said: null`` and counts as wrong (:func:`ace_lab.eval.judging.calibration.summarize`).

One JSON line per probe goes to ``<results_dir>/judging/verdicts.jsonl`` the moment it is
judged (metric, probe, judge, its model identity and prompt fingerprint
(:mod:`ace_lab.eval.judging.identity`), the probe's inputs and their hash, each item's
expected and said verdict, the metric's own per-statement detail), so a run resumes where it
stopped (a probe whose inputs changed is judged again and replaces its older line) and any number
can be audited; calls go through the LLM response cache. ``<results_dir>/judging/calibration.json``
is then rewritten from the stored lines: one entry per (metric, judge identity). Run::

    python -m ace_lab.eval.judging.calibration_run --model qwen1.5b --estimate
    python -m ace_lab.eval.judging.calibration_run --model qwen1.5b --metrics evidence_recall
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ace_lab.config import Settings, load_settings
from ace_lab.eval.judging.calibration import (
    CALIBRATION_NAME,
    CALIBRATION_THRESHOLD,
    METRICS,
    Calibration,
    judging_dir,
    load_calibrations,
    summarize,
    to_record,
)
from ace_lab.eval.judging.calibration_judges import JUDGES, estimate_tokens
from ace_lab.eval.judging.calibration_semantic import semantic_probes
from ace_lab.eval.judging.calibration_sets import (
    Probe,
    acc_statements_probes,
    context_relevancy_probes,
    coverage_probes,
    evidence_recall_probes,
    faithfulness_probes,
    pairwise_probes,
)
from ace_lab.eval.judging.identity import JudgeIdentity, prompt_fingerprint
from ace_lab.eval.studies.study import read_jsonl, utc_now
from ace_lab.llm import LLM, LLMError, get_llm

log = logging.getLogger(__name__)

VERDICTS_FILE = "verdicts.jsonl"
#: Each metric's probe builder: ``builder(n)`` gives about ``n`` positive and ``n`` negative
#: verdicts (coverage: ``n`` probes a side, each with the facts the judge lists; semantic
#: equivalence: ``n`` positives and up to three negatives each, near misses among them).
BUILDERS: dict[str, Callable[[int], list[Probe]]] = {
    "evidence_recall": evidence_recall_probes,
    "context_relevancy": context_relevancy_probes,
    "coverage": lambda n: coverage_probes(max(1, n // 4)),
    "faithfulness": faithfulness_probes,
    "acc_statements": acc_statements_probes,
    "semantic_equivalence": semantic_probes,
    "pairwise_preference": lambda n: pairwise_probes(max(1, n // 2)),
}
#: Positives (and as many negatives) per metric by default: 16 + 16.
DEFAULT_N = 16
#: Prompt and output speed the estimate assumes (a 1.5B model on 2 shared CPU cores).
PROMPT_TOK_S = 70.0
OUTPUT_TOK_S = 8.0


class JudgeMismatch(ValueError):
    """The configured judge is not the one asked to be calibrated (said in one line)."""


def probes_for(metrics: Sequence[str], n: int = DEFAULT_N) -> list[Probe]:
    """The probes of ``metrics`` (about ``n`` positive and ``n`` negative verdicts each)."""
    unknown = sorted(set(metrics) - set(METRICS))
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; known: {', '.join(METRICS)}")
    return [p for m in metrics for p in BUILDERS[m](n)]


def inputs_sha(probe: Probe) -> str:
    """A short hash of a probe's inputs: a probe whose inputs changed is judged again."""
    text = json.dumps(probe.inputs, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def load_lines(folder: Path) -> list[dict[str, Any]]:
    """Every stored probe verdict (oldest first); none when the file is absent."""
    path = folder / VERDICTS_FILE
    return read_jsonl(path) if path.exists() else []


def _key(line: dict[str, Any]) -> tuple[str, str, str, str]:
    """A line's (metric, model identity, prompt fingerprint, probe): the newest line per key
    counts."""
    return (line["metric"], line["judge_identity"], line.get("judge_prompt") or "", line["probe"])


def summarize_lines(lines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One calibration record per (metric, judge identity): the newest line per probe counts,
    each probe once per side (:func:`~ace_lab.eval.judging.calibration.summarize`)."""
    newest_line: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for line in lines:
        newest_line[_key(line)] = line
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for (metric, model, prompt, _), line in newest_line.items():
        groups.setdefault((metric, model, prompt), []).append(line)
    records = []
    by_judge = sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2]))
    for (metric, model, prompt), group in by_judge:
        pairs = [(bool(i["expected"]), i["said"]) for line in group for i in line["items"]]
        probes = [line["probe"] for line in group for _ in line["items"]]
        judge = group[-1]["judge"]
        identity = JudgeIdentity(model, prompt)
        calibration = summarize(metric, judge, pairs, probes, identity)
        records.append(to_record(calibration, threshold=CALIBRATION_THRESHOLD))
    return records


def newest(lines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The newest line per (metric, judge identity, probe), in stored order (older ones are
    superseded)."""
    keep: dict[tuple[str, str, str, str], int] = {}
    for index, line in enumerate(lines):
        keep[_key(line)] = index
    wanted = set(keep.values())
    return [line for index, line in enumerate(lines) if index in wanted]


def write_calibrations(folder: Path) -> list[dict[str, Any]]:
    """Drop superseded lines from ``folder``'s verdicts and rewrite ``calibration.json`` from
    them (one process calibrates at a time); the records."""
    lines = newest(load_lines(folder))
    if lines:
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        (folder / VERDICTS_FILE).write_text(text, encoding="utf-8")
    records = summarize_lines(lines)
    text = json.dumps({"calibrations": records}, indent=1, ensure_ascii=False) + "\n"
    (folder / CALIBRATION_NAME).write_text(text, encoding="utf-8")
    return records


def calibrate(llm: LLM, probes: Sequence[Probe], folder: Path) -> dict[str, Calibration]:
    """Judge the ``probes`` this judge has not judged yet, store each line, rewrite the
    records; returns this judge's calibrations by metric (``attrs`` not kept: failed calls
    are logged, not stored, and retried by the next run)."""
    folder.mkdir(parents=True, exist_ok=True)
    done = {
        (line["metric"], line.get("judge_prompt"), line["probe"], line.get("inputs_sha"))
        for line in load_lines(folder)
        if line["judge_identity"] == llm.model_identity
    }
    todo = [
        p
        for p in probes
        if (p.metric, prompt_fingerprint(p.metric), p.probe_id, inputs_sha(p)) not in done
    ]
    lock = threading.Lock()
    path = folder / VERDICTS_FILE

    def judge(probe: Probe) -> None:
        try:
            said, detail = JUDGES[probe.metric](llm, probe)
        except LLMError as exc:
            log.warning("%s %s: judge call failed: %s", probe.metric, probe.probe_id, exc)
            return
        line = {
            "metric": probe.metric,
            "probe": probe.probe_id,
            "judge": llm.model,
            "judge_identity": llm.model_identity,
            "judge_prompt": prompt_fingerprint(probe.metric),
            "inputs_sha": inputs_sha(probe),
            "inputs": probe.inputs,
            "items": _items(probe, said),
            "detail": detail,
            "judged": utc_now(),
        }
        with lock, path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")

    for metric in dict.fromkeys(p.metric for p in todo):  # one progress bar per metric
        llm.map(judge, [p for p in todo if p.metric == metric], desc=f"calibrate {metric}")
    write_calibrations(folder)
    found = load_calibrations(folder / CALIBRATION_NAME)
    metrics = dict.fromkeys(p.metric for p in probes)
    mine = {
        m: found.find(m, JudgeIdentity(llm.model_identity, prompt_fingerprint(m))) for m in metrics
    }
    return {m: c for m, c in mine.items() if c is not None}


def _items(probe: Probe, said: list[tuple[str, bool | None]]) -> list[dict[str, Any]]:
    """Each judged item with its expected verdict: a ``"*"`` probe expects one verdict of every
    item the judge produced (coverage's facts), any other expects its items' own, in order."""
    if probe.expected[0][0] == "*":
        expect = probe.expected[0][1]
        return [{"item": item, "expected": expect, "said": s} for item, s in said]
    return [
        {"item": item, "expected": expected, "said": s}
        for (item, expected), (_, s) in zip(probe.expected, said, strict=True)
    ]


def estimate(probes: Sequence[Probe]) -> dict[str, dict[str, float]]:
    """Per metric: probes, approximate prompt and output tokens, and minutes at
    :data:`PROMPT_TOK_S` / :data:`OUTPUT_TOK_S` (one request at a time)."""
    out: dict[str, dict[str, float]] = {}
    for probe in probes:
        prompt, output = estimate_tokens(probe)
        row = out.setdefault(probe.metric, {"probes": 0, "prompt": 0, "output": 0})
        row["probes"] += 1
        row["prompt"] += prompt
        row["output"] += output
    for row in out.values():
        row["minutes"] = (row["prompt"] / PROMPT_TOK_S + row["output"] / OUTPUT_TOK_S) / 60
    return out


def print_estimate(probes: Sequence[Probe]) -> None:
    """One line per metric of :func:`estimate`, then the total."""
    rows = estimate(probes)
    for metric, row in rows.items():
        print(
            f"{metric:22s} {int(row['probes']):3d} probes ~{int(row['prompt']):6d} prompt "
            f"~{int(row['output']):5d} output tokens ~{row['minutes']:.1f} min"
        )
    total = sum(r["minutes"] for r in rows.values())
    print(f"total ~{total:.0f} min at {PROMPT_TOK_S:.0f} prompt / {OUTPUT_TOK_S:.0f} out tok/s")


def run(
    metrics: Sequence[str],
    n: int = DEFAULT_N,
    settings: Settings | None = None,
    *,
    only_estimate: bool = False,
    folder: Path | None = None,
    identity: str | None = None,
) -> int:
    """Calibrate the configured judge on ``metrics`` (or only print the estimate) and print
    each metric's :meth:`Calibration.label`; the exit status (0). With ``identity`` (a model
    identity the records name, e.g. from ``ace-lab calibrate --missing``) the configured judge
    must be that one (:class:`JudgeMismatch` otherwise), so the calibration is of the judge
    that gave those verdicts."""
    probes = probes_for(metrics, n)
    if only_estimate:
        print_estimate(probes)
        return 0
    settings = settings or load_settings()
    llm = get_llm(settings)
    if identity is not None and llm.model_identity != identity:
        raise JudgeMismatch(
            f"the configured judge is {llm.model_identity}, not {identity}: configure the "
            "model, serving backend and llama-server build that identity names "
            "(`ace-lab llm info` shows the identity), then calibrate"
        )
    found = calibrate(llm, probes, folder or judging_dir(settings))
    for metric in metrics:
        if metric in found:
            print(f"{metric:22s} {found[metric].label()}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ace_lab.eval.judging.calibration_run", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--metrics", nargs="+", default=list(METRICS), choices=METRICS)
    parser.add_argument("--n", type=int, default=DEFAULT_N, help="positives (= negatives)")
    parser.add_argument("--model", help="local model tier judging (default: the configured one)")
    parser.add_argument("--estimate", action="store_true", help="print the cost; call nothing")
    parser.add_argument(
        "--folder", type=Path, help="where records go (default: <results_dir>/judging)"
    )
    args = parser.parse_args(argv)
    settings = load_settings(tier=args.model) if args.model else load_settings()
    return run(args.metrics, args.n, settings, only_estimate=args.estimate, folder=args.folder)


if __name__ == "__main__":
    raise SystemExit(main())
