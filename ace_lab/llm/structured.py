"""Structured output: JSON-schema ``response_format``, parsing, validation, retries, fallback.

:class:`StructuredOutput` gives :class:`~ace_lab.llm.client.LLM` its ``json`` method. The schema
goes to the server as ``response_format`` (downgraded once to ``json_object`` with the schema in
the system message if the server rejects ``json_schema``); each output is parsed with
:func:`extract_json` and validated against the pydantic schema, retried a bounded number of
times, and replaced by the caller's documented default when every attempt fails, with a note on
the open trace step (a retry that succeeded is noted there too). Only valid outputs enter the
response cache. Parsing is bounded (size, depth, UTF-8) and never raises past ``json``: every
failure is a recorded retry or the default.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import openai
from pydantic import BaseModel, ValidationError

from ace_lab.evidence import current_step
from ace_lab.steps import Repair

T = TypeVar("T", bound=BaseModel)

Message = dict[str, str]


@dataclass(frozen=True)
class JsonResult(Generic[T]):
    """A validated structured output, or the caller's default when every attempt failed."""

    value: T
    fallback: bool
    attempts: int
    errors: tuple[str, ...] = ()


#: Longest model output :func:`extract_json` parses: far above any bounded schema's answer
#: (max_tokens ≤ 8192), so only runaway output is refused, as a failed attempt.
MAX_JSON_CHARS = 200_000
#: Deepest nesting :func:`extract_json` parses (every output schema here is a few levels deep):
#: checked before ``json.loads``, whose recursion a deeply nested output would exhaust.
MAX_JSON_DEPTH = 64

#: The characters that change JSON's lexical state: brackets, quotes and escapes.
_JSON_SPECIAL = re.compile(r'[\[\]{}"\\]')


class JsonOutputError(ValueError):
    """A model output that is not usable JSON: too long, too deep, or not encodable as UTF-8."""


def _check_depth(text: str, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise :class:`JsonOutputError` if ``text`` nests brackets deeper than ``limit``.

    One linear pass over the characters that matter, with JSON's string rules (brackets inside
    strings do not count), so ``json.loads`` never recurses deeper than ``limit``.
    """
    depth, in_string, skip = 0, False, -1
    for match in _JSON_SPECIAL.finditer(text):
        ch, at = match.group(), match.start()
        if at == skip:  # the character after a backslash in a string
            continue
        if in_string:
            if ch == "\\":
                skip = at + 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                raise JsonOutputError(f"JSON nested deeper than {limit} levels")
        elif ch in "]}":
            depth = max(0, depth - 1)


def _check_strings(value: Any) -> None:
    """Raise :class:`JsonOutputError` if a string (or key) in ``value`` is not valid UTF-8.

    JSON may spell a lone surrogate (``"\\ud800"``); such a string cannot be written to a
    JSONL record, the cache or the next prompt's hash, so the output is refused here.
    """
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise JsonOutputError(f"string is not valid UTF-8: {exc.reason}") from None
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _reject_constant(name: str) -> Any:
    raise JsonOutputError(f"{name} is not JSON")


def _loads(text: str) -> Any:
    _check_depth(text)
    value = json.loads(text, parse_constant=_reject_constant)
    _check_strings(value)
    return value


def _unfenced(text: str) -> str | None:
    """The body of the first ```` ``` ```` (or ```` ```json ````) fence; None without one."""
    start = text.find("```")
    end = text.find("```", start + 3) if start != -1 else -1
    if end == -1:
        return None
    body = text[start + 3 : end]
    return (body[4:] if body.startswith("json") else body).strip()


def _braced(text: str | None) -> str | None:
    """``text`` from its first ``{`` to its last ``}``; None if it holds no such span."""
    if text is None:
        return None
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if start != -1 and end > start else None


def extract_json(text: str) -> Any:
    """Parse the JSON object in ``text``: bare, fenced in ```json, or surrounded by prose.

    Tried in order: the whole text, the first fence's body, the ``{…}`` span of that body and
    the ``{…}`` span of the whole text (a string inside the JSON may itself hold a fence).
    Bounded: an output over :data:`MAX_JSON_CHARS` characters, nested deeper than
    :data:`MAX_JSON_DEPTH`, holding ``NaN``/``Infinity``, or holding a character or a string
    that is not valid UTF-8 (a lone surrogate) raises :class:`JsonOutputError` (a
    ``ValueError``), as malformed JSON raises ``json.JSONDecodeError``. Every pass over the
    text is linear in its length.
    """
    if len(text) > MAX_JSON_CHARS:
        raise JsonOutputError(f"output of {len(text)} characters (limit {MAX_JSON_CHARS})")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise JsonOutputError(f"output is not valid UTF-8: {exc.reason}") from None
    stripped = text.strip()
    fenced = _unfenced(stripped)
    candidates = dict.fromkeys(
        c for c in (stripped, fenced, _braced(fenced), _braced(stripped)) if c is not None
    )
    errors: list[ValueError] = []
    for candidate in candidates:
        try:
            return _loads(candidate)
        except (json.JSONDecodeError, JsonOutputError) as exc:
            errors.append(exc)
    raise errors[0]


def _without_string_bounds(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: _without_string_bounds(v)
            for k, v in node.items()
            if not (k in ("maxLength", "minLength") and node.get("type") == "string")
        }
    if isinstance(node, list):
        return [_without_string_bounds(v) for v in node]
    return node


def schema_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` that asks a server to follow ``schema``'s JSON schema.

    String length bounds are left out of what is sent: llama.cpp compiles ``maxLength: n`` into
    n nested optional grammar rules, and sampling under such a grammar slows to a fraction of a
    token per second. List bounds (``maxItems``) stay; long strings are truncated on validation.
    """
    return {
        "type": "json_schema",
        "json_schema": {
            "name": schema.__name__,
            "schema": _without_string_bounds(schema.model_json_schema()),
            "strict": True,
        },
    }


def _schema_rejected(error: openai.BadRequestError) -> bool:
    text = str(error).lower()
    return "response_format" in text or "json_schema" in text or "schema" in text


def parse_output(text: str, schema: type[T]) -> T:
    """``text`` parsed by :func:`extract_json` and validated against ``schema``.

    Whatever goes wrong — malformed or bounded-out JSON, a failed validation, or any other
    exception a validator raises — comes out as :class:`JsonOutputError`, so a caller has one
    error to turn into a retry or a fallback and no model output can abort a run.
    """
    try:
        return schema.model_validate(extract_json(text))
    except JsonOutputError:
        raise
    except ValidationError as exc:
        raise JsonOutputError(f"ValidationError: {str(exc)[:200]}") from exc
    except Exception as exc:  # a parser must never crash a run
        raise JsonOutputError(f"{type(exc).__name__}: {str(exc)[:200]}") from exc


def _note(attempt: int, message: str) -> str:
    """One failed attempt, as recorded: bounded, and safe to write as UTF-8 whatever it quotes."""
    text = f"attempt {attempt}: {message[:240]}"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _validates(text: str, schema: type[BaseModel]) -> bool:
    try:
        parse_output(text, schema)
    except JsonOutputError:
        return False
    return True


class StructuredOutput:
    """The JSON path of :class:`~ace_lab.llm.client.LLM`, kept apart from plain chat.

    A mixin: the host class provides ``chat(messages, *, tag, ..., accept)`` (cached, ledgered,
    traced) and sets ``_json_mode`` to ``"json_schema"``; this class only shapes the requests
    and judges the replies, so every attempt is an ordinary cached chat call.
    """

    #: ``"json_schema"``, or ``"json_object"`` once the server has rejected a schema.
    _json_mode: str

    def json(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        tag: str,
        default: T | Callable[[], T],
        attempts: int = 3,
        temperature: float = 0.0,
        max_tokens: int = 512,
        seed: int = 0,
        use_cache: bool = True,
    ) -> JsonResult[T]:
        """A ``schema`` instance parsed from the model's JSON, or ``default`` after ``attempts``.

        The schema goes to the server as ``response_format`` (``json_schema``; if the server
        rejects that, ``json_object`` with the schema in the system message). Attempt k > 1
        uses seed + k - 1 and temperature ≥ 0.5, so a retry is a different request rather than
        the same deterministic failure. Invalid outputs are never cached.
        """
        errors: list[str] = []
        for attempt in range(1, attempts + 1):
            request_messages, response_format = self._json_request(messages, schema)
            try:
                completion = self.chat(
                    request_messages,
                    tag=tag,
                    temperature=temperature if attempt == 1 else max(temperature, 0.5),
                    max_tokens=max_tokens,
                    seed=seed + attempt - 1,
                    response_format=response_format,
                    use_cache=use_cache,
                    accept=lambda text: _validates(text, schema),
                )
            except openai.BadRequestError as exc:
                if self._json_mode == "json_schema" and _schema_rejected(exc):
                    self._json_mode = "json_object"
                    errors.append(
                        f"attempt {attempt}: server rejected json_schema; using json_object"
                    )
                    continue
                errors.append(_note(attempt, repr(exc)))
                continue
            try:
                value = parse_output(completion.text, schema)
            except JsonOutputError as exc:
                errors.append(_note(attempt, str(exc)))
                continue
            if errors:
                self._note_retry(tag, attempt, errors)
            return JsonResult(value, False, attempt, tuple(errors))
        fallback = default() if callable(default) else default
        self._note_fallback(tag, attempts, errors)
        return JsonResult(fallback, True, attempts, tuple(errors))

    def _json_request(
        self, messages: Sequence[Message], schema: type[BaseModel]
    ) -> tuple[list[Message], dict[str, Any]]:
        if self._json_mode == "json_schema":
            return [dict(m) for m in messages], schema_format(schema)
        instruction = "Reply with one JSON object that follows this JSON schema:\n" + json.dumps(
            schema.model_json_schema()
        )
        out = [dict(m) for m in messages]
        if out and out[0]["role"] == "system":
            out[0]["content"] = out[0]["content"] + "\n\n" + instruction
        else:
            out.insert(0, {"role": "system", "content": instruction})
        return out, {"type": "json_object"}

    @staticmethod
    def _note_retry(tag: str, attempt: int, errors: list[str]) -> None:
        step = current_step()  # the open step, if any, shows the failed attempts before it
        if step is not None:
            step.notes.append(f"{tag}: valid on attempt {attempt} after {len(errors)} failed")
            step.repairs.append(Repair(tag, "retry", attempt, tuple(errors)))

    @staticmethod
    def _note_fallback(tag: str, attempts: int, errors: list[str]) -> None:
        step = current_step()  # the open step, if any, shows the fallback
        if step is not None:
            step.notes.append(f"{tag}: fell back to default after {len(errors)} failed attempts")
            step.repairs.append(Repair(tag, "fallback", attempts, tuple(errors)))
