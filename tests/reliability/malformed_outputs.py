"""Parsers under malformed model output: every JSON stage driven through the real ``LLM.json``.

For each parser (router, planner, the hierarchical, OpenIE and typed extraction stages, the
judge) the real stage function runs against :class:`tests.support.scripted.ScriptedClient`,
whose every reply is a hypothesis-generated output for the schema the request names (see
malformed_gen: truncated JSON, wrong types, extra and missing fields, huge strings, unicode and
lone surrogates, markdown fences, several objects, prose around JSON, deep nesting).

Generation: hypothesis ``@given(st.data())`` with ``derandomize=True``, no example database and
only the generate phase — no shrinking — so every run draws the same examples and each one is
counted once. An example is *held* when the stage did not crash and, for every ``LLM.json``
call it made:

- a fallback returned exactly the documented default, no output it saw was a valid one, and
  the fallback is visible where the stage records it (a trace note/``fallbacks`` entry, or the
  stage's own record for the typed schema, which runs in its own trace);
- an accepted output was not hostile (lone surrogate, nesting deeper than the limit), no valid
  output before it was rejected, and a retry (attempt > 1) is recorded in the trace;
- every string the stage returned and the trace holds encodes as UTF-8 and serialises as JSON.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from ace_lab.config import Settings
from ace_lab.data import Chunk
from ace_lab.evidence import Trace
from ace_lab.llm import LLM, JsonResult, extract_json
from ace_lab.steps import to_record
from tests.reliability.malformed_gen import NODE_TYPES, RELATION_TYPES, generate
from tests.support.scripted import ScriptedClient

ROW = "parsers under malformed output"
FULL_EXAMPLES, FAST_EXAMPLES = 1000, 100


@dataclass
class Call:
    """One ``LLM.json`` call: what it was given, what it returned, the outputs it was served."""

    tag: str
    default: Any
    attempts: int
    result: JsonResult
    served: list[tuple[str, str]]


class SpyLLM(LLM):
    """The real LLM; ``json`` is the real path, with each call's result kept for the checks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[Call] = []
        self.served: list[tuple[str, str]] = []

    def json(self, messages, schema, **kw):  # type: ignore[no-untyped-def, override]
        before = len(self.served)
        result = super().json(messages, schema, **kw)
        call = Call(kw["tag"], kw["default"], kw.get("attempts", 3), result, self.served[before:])
        self.calls.append(call)
        return result


def _chunk(i: int) -> Chunk:
    text = f"Mira Holt founded the Tidal Lantern Museum in Brinemouth in 1978 (case {i})."
    return Chunk(id=f"c{i}", doc_id=f"d{i}", title=f"Lantern {i}", text=text, index=0)


# ------------------------------------------------------------------------------- drivers
def _router(llm: LLM, i: int) -> Any:
    from ace_lab.ace.router import route

    return route(llm, f"Where is the tidal lantern kept? ({i})")


def _planner(llm: LLM, i: int) -> Any:
    from ace_lab.ace.planner import plan

    return plan(llm, f"Who founded the museum? ({i})", "C_base: a museum.", gap=i % 2 == 0)


def _hier_extract(llm: LLM, i: int) -> Any:
    from ace_lab.graph.hierarchy import HierarchyConfig
    from ace_lab.graph.hierarchy.extract import extract_chunk

    return extract_chunk(_chunk(i), llm, HierarchyConfig())


def _hier_report(llm: LLM, i: int) -> Any:
    from ace_lab.graph.hierarchy import HierarchyConfig
    from ace_lab.graph.hierarchy.communities import community_report_nodes

    ids = [f"ent:{name} {i}" for name in ("mira", "museum", "brinemouth")]
    by_id = {e: {"name": e[4:], "type": "X", "description": e, "source_ids": ["c"]} for e in ids}
    rels = [{"source": ids[0], "target": ids[1], "description": "founded", "weight": 1.0}]
    return community_report_nodes([ids], by_id, rels, llm, HierarchyConfig(), progress=False)


def _openie(mode: str) -> Callable[[LLM, int], Any]:
    def drive(llm: LLM, i: int) -> Any:
        from ace_lab.graph.openie import OpenIEConfig, _extractor

        return _extractor(llm, OpenIEConfig(mode=mode))(_chunk(i))  # type: ignore[arg-type]

    return drive


def _schema() -> Any:
    from ace_lab.graph.typed import InducedSchema

    return InducedSchema(NODE_TYPES, RELATION_TYPES)


def _typed_schema(llm: LLM, i: int) -> Any:
    from ace_lab.graph.typed import TypedConfig, induce_schema

    return induce_schema([_chunk(i)], llm, TypedConfig(schema_sample_chunks=1))


def _typed_extract(llm: LLM, i: int) -> Any:
    from ace_lab.graph.typed import TypedConfig
    from ace_lab.graph.typed.extract import extractor

    return extractor(llm, _schema(), TypedConfig())(_chunk(i))


#: The two triples every reflection judges (the generator answers for two).
REFLECTED = [
    {"subject": "Mira Holt", "subject_type": "Person", "relation": "BORN_IN",
     "object": "Brinemouth", "object_type": "Place"},
    {"subject": "Museum", "subject_type": "Work", "relation": "LOCATED_IN",
     "object": "Harbour", "object_type": "Place"},
]  # fmt: skip


def _typed_reflect(llm: LLM, i: int) -> Any:
    from ace_lab.graph.extract import ChunkRecord
    from ace_lab.graph.typed import TypedConfig
    from ace_lab.graph.typed.reflect import reflector

    chunk = _chunk(i)
    record = ChunkRecord(chunk.id, {"triples": REFLECTED}, 0, 0, 0, 0, 0)
    return reflector(llm, _schema(), TypedConfig(reflection="all"), {chunk.id: record})(chunk)


def _judge(llm: LLM, i: int) -> Any:
    from ace_lab.eval.judging.judge import judge_pair

    return judge_pair(llm, f"Summarise the harbour ({i})", "Answer A text.", "Answer B text.")


def _schema_record(result: Any, retry: bool) -> bool:
    """The typed schema runs in its own trace: its result records calls and fallbacks."""
    return (
        result.cost["llm_calls"] > 1
        if retry
        else bool(result.fallback and result.cost["fallbacks"])
    )


@dataclass(frozen=True)
class Parser:
    name: str
    drive: Callable[[LLM, int], Any]
    #: Where a fallback (retry=False) or a retry (retry=True) is recorded besides the trace.
    record: Callable[[Any, bool], bool] | None = None


PARSERS = (
    Parser("router", _router),
    Parser("planner", _planner),
    Parser("hierarchy.extract", _hier_extract),
    Parser("hierarchy.report", _hier_report),
    Parser("openie.joint", _openie("joint")),
    Parser("openie.ner_then_triples", _openie("ner_then_triples")),
    Parser("typed.schema", _typed_schema, _schema_record),
    Parser("typed.extract", _typed_extract),
    Parser("typed.reflect", _typed_reflect),
    Parser("judge", _judge),
)


# -------------------------------------------------------------------------------- checks
def strings(node: Any) -> list[str]:
    """Every string in a result: dataclasses, pydantic models, mappings and sequences."""
    found, stack = [], [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, BaseModel):
            stack.append(item.model_dump())
        elif isinstance(item, dict):
            stack.extend(list(item.keys()) + list(item.values()))
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        elif hasattr(item, "__dataclass_fields__"):
            stack.extend(getattr(item, name) for name in item.__dataclass_fields__)
    return found


def _encodes(node: Any) -> bool:
    try:
        for text in strings(node):
            text.encode("utf-8")
        json.dumps(node, default=repr, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError, TypeError):
        return False
    return True


def _in_step(step: Any, outcome: str, tag: str) -> bool:
    return any(r.tag == tag and r.outcome == outcome for r in step.repairs)


def check_call(call: Call, step: Any, result: Any, parser: Parser) -> list[str]:
    """What a single ``LLM.json`` call did wrong (empty when it held)."""
    problems, labels, got = [], [label for _, label in call.served], call.result
    if got.fallback:
        default = call.default() if callable(call.default) else call.default
        if got.value.model_dump() != default.model_dump():
            problems.append("fallback is not the documented default")
        if "valid" in labels:
            problems.append(f"rejected a valid output (attempt {labels.index('valid') + 1})")
        if len(labels) != call.attempts:
            problems.append(f"{len(labels)} outputs for {call.attempts} attempts")
        if not (
            _in_step(step, "fallback", call.tag) or (parser.record and parser.record(result, False))
        ):
            problems.append("fallback not visible in the trace")
        return problems
    if got.attempts != len(labels):
        problems.append(f"accepted attempt {got.attempts} after {len(labels)} outputs")
    elif labels[-1] == "reject":
        problems.append("accepted a hostile output (lone surrogate or deep nesting)")
    if "valid" in labels[:-1]:
        problems.append("rejected a valid output before the accepted one")
    retried = _in_step(step, "retry", call.tag) or (parser.record and parser.record(result, True))
    if got.attempts > 1 and not retried:
        problems.append("retry not recorded in the trace")
    if not _encodes(got.value):
        problems.append("accepted value does not encode as UTF-8")
    return problems


@dataclass
class Tally:
    examples: int = 0
    held: int = 0
    outputs: Counter[str] = field(default_factory=Counter)
    fallbacks: int = 0
    retries: int = 0
    problems: Counter[str] = field(default_factory=Counter)


def run_example(parser: Parser, llm: SpyLLM, i: int, tally: Tally) -> None:
    """Drive ``parser`` once through ``llm.map`` and record whether it held."""
    llm.calls.clear()
    trace = Trace()
    problems: list[str] = []
    with trace.step("fuzz") as step:
        try:
            result = llm.map(lambda k: parser.drive(llm, k), [i])[0]
        except Exception as exc:  # the property: nothing escapes
            result, problems = None, [f"crash: {type(exc).__name__}: {str(exc)[:80]}"]
    for call in llm.calls:
        problems += check_call(call, step, result, parser)
        tally.outputs.update(label for _, label in call.served)
        tally.fallbacks += call.result.fallback
        tally.retries += call.result.attempts > 1 and not call.result.fallback
    recorded = [to_record(r) for r in step.repairs]
    if not _encodes(result) or not _encodes([recorded, step.notes]):
        problems.append("result or trace does not encode as UTF-8")
    tally.examples += 1
    tally.held += not problems
    tally.problems.update(problems)


def measure_parser(parser: Parser, examples: int, cache_dir: Path) -> Tally:
    """``examples`` hypothesis-drawn runs of ``parser`` (derandomized, generate phase only)."""
    tally = Tally()
    llm = SpyLLM(Settings(cache_dir=cache_dir), client=ScriptedClient([]))
    counter = iter(range(10**9))

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(st.data())
    def one(data: st.DataObject) -> None:
        def reply(kwargs: dict[str, Any]) -> str:
            name = kwargs["response_format"]["json_schema"]["name"]
            text, label = generate(data.draw, name, len(REFLECTED))
            llm.served.append((text, label))
            return text

        llm.client().script = reply
        run_example(parser, llm, next(counter), tally)

    one()
    # Only valid outputs may enter the response cache: each entry must parse again.
    for entry in (llm.cache.entries() if llm.cache is not None else {}).values():
        try:
            extract_json(entry.text)
        except ValueError:
            tally.problems["an invalid output was cached"] += 1
            tally.held -= 1
    return tally


def row(parser: Parser, examples: int, cache_dir: Path) -> dict[str, Any]:
    """The table row of ``parser`` after ``examples`` runs."""
    tally = measure_parser(parser, examples, cache_dir)
    out = tally.outputs
    note = (
        f"{sum(out.values())} outputs ({out['valid']} valid, {out['reject']} hostile, "
        f"{out['any']} malformed), {tally.fallbacks} fallbacks, {tally.retries} recovered "
        "retries; hypothesis derandomized, generate phase only"
    )
    if tally.problems:
        note += "; problems: " + "; ".join(f"{p} ×{n}" for p, n in tally.problems.most_common(4))
    return {
        "property": f"{ROW}: {parser.name}",
        "attempts": tally.examples,
        "held": tally.held,
        "failed": tally.examples - tally.held,
        "note": note,
    }


def measure(full: bool) -> list[dict[str, Any]]:
    """One row per parser: 1,000 runs each (``full``) or 100, every one through ``LLM.json``."""
    examples = FULL_EXAMPLES if full else FAST_EXAMPLES
    with tempfile.TemporaryDirectory() as tmp:
        return [row(parser, examples, Path(tmp) / parser.name) for parser in PARSERS]
