"""Bounded, frozen configuration: one mechanism for every policy and config object.

A config is a frozen dataclass that inherits :class:`Bounded` and declares each field with
:func:`bounded` — a default, help text and either numeric bounds, a set of allowed values
(``choices``) or, for tuple fields, the values a subset may draw from (``subset_of``)::

    @dataclass(frozen=True)
    class HiConfig(Bounded):
        top_entities: int = bounded(8, lo=0, hi=200, help="entities seeded by the query")

Three ways in, for three kinds of caller:

- construction (``HiConfig(top_entities=9)``) *validates*: a value out of bounds raises
  :class:`ConfigError` naming the field, so a person's typo fails loudly;
- :meth:`Bounded.clamp` *repairs* untrusted values (an LLM's JSON, a notebook slider): numbers are
  clamped into range, unknown choices and wrong types fall back to the default, missing fields
  take the default, and every change is reported as an :class:`Adjustment`;
- :meth:`Bounded.describe` lists fields, values, defaults, bounds and help text as rows, for
  ``ace-lab methods`` and notebook tables.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Self

_KEY = "ace_lab.bounded"


class ConfigError(ValueError):
    """A configuration value is outside its declared bounds."""


@dataclass(frozen=True)
class Bounds:
    """What a field accepts (the metadata :func:`bounded` attaches)."""

    help: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple[Any, ...] | None = None
    subset_of: tuple[Any, ...] | None = None
    nonempty: bool = False
    #: Why a value is not acceptable (None when it is), beyond the bounds above.
    check: Callable[[Any], str | None] | None = None
    #: What the field accepts, in words, when ``check`` decides it.
    accepts: str | None = None
    #: How a value is shown in messages and reprs (a secret as ``***``); None: as it is.
    redact: Callable[[Any], str] | None = None

    def text(self) -> str:
        if self.accepts is not None:
            return self.accepts
        if self.choices is not None:
            return " | ".join(map(str, self.choices))
        if self.subset_of is not None:
            members = "{" + ", ".join(map(str, self.subset_of)) + "}"
            return f"⊆ {members}" + (" non-empty" if self.nonempty else "")
        lo = "-∞" if self.lo is None else f"{self.lo:g}"
        hi = "∞" if self.hi is None else f"{self.hi:g}"
        return f"[{lo}, {hi}]" if (self.lo, self.hi) != (None, None) else "any"

    def show(self, value: Any) -> str:
        """``value`` as messages and reprs may show it."""
        return repr(value if value is None or self.redact is None else self.redact(value))


def bounded(
    default: Any = dataclasses.MISSING,
    *,
    help: str,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[Any, ...] | None = None,
    subset_of: tuple[Any, ...] | None = None,
    nonempty: bool = False,
    factory: Callable[[], Any] | None = None,
    check: Callable[[Any], str | None] | None = None,
    accepts: str | None = None,
    redact: Callable[[Any], str] | None = None,
) -> Any:
    """A dataclass field with a default (or a ``factory`` making it), help text and the values
    it accepts: numeric bounds, ``choices``, a subset of ``subset_of``, or a ``check`` (with
    ``accepts`` saying in words what it lets through)."""
    if not help:
        raise ValueError("every bounded field needs help text")
    if (default is dataclasses.MISSING) == (factory is None):
        raise TypeError("a bounded field needs exactly one of a default and a factory")
    meta = {_KEY: Bounds(help, lo, hi, choices, subset_of, nonempty, check, accepts, redact)}
    if isinstance(default, (list, dict, set)):
        raise TypeError("bounded defaults must be immutable (use a tuple)")
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def field_bounds(f: dataclasses.Field) -> Bounds | None:
    """What a dataclass field declared with :func:`bounded` accepts (None for another field)."""
    return f.metadata.get(_KEY)


def field_default(f: dataclasses.Field) -> Any:
    """A dataclass field's default value (its factory's value when it has one)."""
    if f.default is dataclasses.MISSING and f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


@dataclass(frozen=True)
class Adjustment:
    """One change :meth:`Bounded.clamp` made to an untrusted value."""

    field: str
    given: Any
    used: Any
    reason: str  # "clamped" | "defaulted" | "missing" | "unknown field"

    def __str__(self) -> str:
        return f"{self.field}: {self.given!r} → {self.used!r} ({self.reason})"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check(value: Any, b: Bounds, kind: type | None) -> str | None:
    """Why ``value`` is not acceptable for the field (None when it is)."""
    if b.check is not None:
        return b.check(value)
    if b.choices is not None:
        return None if value in b.choices else f"must be one of {b.choices}"
    if b.subset_of is not None:
        if not isinstance(value, tuple):
            return "must be a tuple"
        unknown = [v for v in value if v not in b.subset_of]
        if unknown:
            return f"has unknown values {unknown}; use a subset of {b.subset_of}"
        return "must not be empty" if b.nonempty and not value else None
    if kind is bool:
        return None if isinstance(value, bool) else "must be true or false"
    if kind in (int, float):
        if not _is_number(value) or (isinstance(value, float) and math.isnan(value)):
            return "must be a number"
        if kind is int and not float(value).is_integer():
            return "must be a whole number"
        if (b.lo is not None and value < b.lo) or (b.hi is not None and value > b.hi):
            return f"must be in {b.text()}"
    return None


class Bounded:
    """Mixin for frozen dataclasses whose fields are declared with :func:`bounded`."""

    def __post_init__(self) -> None:
        self.validate()

    @classmethod
    def _field_types(cls) -> dict[str, tuple[type | None, bool]]:
        """Per field: the scalar type its annotation names (int, float, bool, str or None for
        anything else) and whether the annotation admits None."""
        cached = cls.__dict__.get("_bounded_types")
        if cached is None:
            names = {"int": int, "float": float, "bool": bool, "str": str}
            cached = {}
            for f in dataclasses.fields(cls):  # type: ignore[arg-type]
                parts = [p.strip() for p in str(f.type).split("|")]
                kinds = [names[p] for p in parts if p in names]
                cached[f.name] = (kinds[0] if len(kinds) == 1 else None, "None" in parts)
            setattr(cls, "_bounded_types", cached)  # noqa: B010 - class-level memo
        return cached

    def validate(self) -> None:
        """Raise :class:`ConfigError` for the first field outside its bounds."""
        types = self._field_types()
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            b = field_bounds(f)
            if b is None:
                continue
            value = getattr(self, f.name)
            kind, optional = types[f.name]
            if value is None and optional:
                continue
            why = _check(value, b, kind)
            if why:
                raise ConfigError(f"{type(self).__name__}.{f.name} {why}, got {b.show(value)}")

    @classmethod
    def clamp(cls, values: Mapping[str, Any] | None = None) -> tuple[Self, list[Adjustment]]:
        """An instance from untrusted ``values``, repaired, and the list of repairs.

        Numbers out of range are clamped (and ints rounded); anything else that is not
        acceptable — a wrong type, an unknown choice, a subset with unknown members — takes
        the field's default; missing fields take the default; unknown keys are ignored. Never
        raises for bad values.
        """
        values = dict(values or {})
        types = cls._field_types()
        kwargs: dict[str, Any] = {}
        changes: list[Adjustment] = []
        fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        for key in values:
            if key not in fields:
                changes.append(Adjustment(str(key), values[key], None, "unknown field"))
        for name, f in fields.items():
            if not f.init:
                continue
            b = field_bounds(f)
            default = field_default(f)
            if name not in values:
                if b is not None:
                    changes.append(Adjustment(name, None, default, "missing"))
                continue
            given = values[name]
            if b is None:
                kwargs[name] = given
                continue
            kind, optional = types[name]
            if given is None and optional:
                kwargs[name] = None
                continue
            if b.subset_of is not None and isinstance(given, list):
                given = tuple(given)
            used, reason = given, ""
            if _check(given, b, kind):
                used, reason = _repair(given, b, kind, default)
            elif kind is int and isinstance(given, float):
                used = int(given)  # 8.0 from JSON is the whole number 8
            kwargs[name] = used
            if reason:
                changes.append(Adjustment(name, values[name], used, reason))
        return cls(**kwargs), changes

    @classmethod
    def describe(cls, instance: Bounded | None = None) -> list[dict[str, Any]]:
        """One row per field: name, value (of ``instance``, else the default), default,
        accepted values and help text."""
        rows = []
        types = cls._field_types()
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            b = field_bounds(f)
            if b is None:
                continue
            default = field_default(f)
            value = getattr(instance, f.name) if instance is not None else default
            kind, optional = types[f.name]
            accepts = "true | false" if kind is bool and b.accepts is None else b.text()
            rows.append(
                {
                    "field": f.name,
                    "value": value,
                    "default": default,
                    "accepts": accepts + (" | None" if optional else ""),
                    "help": b.help,
                }
            )
        return rows

    @classmethod
    def describe_field(cls, name: str) -> dict[str, Any]:
        """The :meth:`describe` row of field ``name``."""
        return next(row for row in cls.describe() if row["field"] == name)

    @classmethod
    def field_problem(cls, name: str, value: Any) -> str | None:
        """Why ``value`` is not acceptable for field ``name`` (None when it is)."""
        f = next(f for f in dataclasses.fields(cls) if f.name == name)  # type: ignore[arg-type]
        b = field_bounds(f)
        kind, optional = cls._field_types()[name]
        if b is None or (value is None and optional):
            return None
        return _check(value, b, kind)

    def changed(self) -> dict[str, Any]:
        """The fields whose value differs from the default (a compact label for tables)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
            if field_bounds(f) is not None and getattr(self, f.name) != field_default(f)
        }


def _repair(given: Any, b: Bounds, kind: type | None, default: Any) -> tuple[Any, str]:
    if kind in (int, float) and b.choices is None and _is_number(given) and not math.isnan(given):
        value = float(given)
        if b.lo is not None:
            value = max(value, b.lo)
        if b.hi is not None:
            value = min(value, b.hi)
        used: Any = round(value) if kind is int else value
        return used, "clamped"
    return default, "defaulted"
