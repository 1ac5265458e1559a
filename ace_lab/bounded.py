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
from collections.abc import Mapping
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

    def text(self) -> str:
        if self.choices is not None:
            return " | ".join(map(str, self.choices))
        if self.subset_of is not None:
            members = "{" + ", ".join(map(str, self.subset_of)) + "}"
            return f"⊆ {members}" + (" non-empty" if self.nonempty else "")
        lo = "-∞" if self.lo is None else f"{self.lo:g}"
        hi = "∞" if self.hi is None else f"{self.hi:g}"
        return f"[{lo}, {hi}]" if (self.lo, self.hi) != (None, None) else "any"


def bounded(
    default: Any,
    *,
    help: str,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[Any, ...] | None = None,
    subset_of: tuple[Any, ...] | None = None,
    nonempty: bool = False,
) -> Any:
    """A dataclass field with a default, help text and the values it accepts."""
    if not help:
        raise ValueError("every bounded field needs help text")
    meta = {_KEY: Bounds(help, lo, hi, choices, subset_of, nonempty)}
    if isinstance(default, (list, dict, set)):
        raise TypeError("bounded defaults must be immutable (use a tuple)")
    return dataclasses.field(default=default, metadata=meta)


@dataclass(frozen=True)
class Adjustment:
    """One change :meth:`Bounded.clamp` made to an untrusted value."""

    field: str
    given: Any
    used: Any
    reason: str  # "clamped" | "defaulted" | "missing" | "unknown field"

    def __str__(self) -> str:
        return f"{self.field}: {self.given!r} → {self.used!r} ({self.reason})"


def _bounds(f: dataclasses.Field) -> Bounds | None:
    return f.metadata.get(_KEY)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check(value: Any, b: Bounds, kind: type | None) -> str | None:
    """Why ``value`` is not acceptable for the field (None when it is)."""
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
            b = _bounds(f)
            if b is None:
                continue
            value = getattr(self, f.name)
            kind, optional = types[f.name]
            if value is None and optional:
                continue
            why = _check(value, b, kind)
            if why:
                raise ConfigError(f"{type(self).__name__}.{f.name} {why}, got {value!r}")

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
            b = _bounds(f)
            default = f.default
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
            b = _bounds(f)
            if b is None:
                continue
            value = getattr(instance, f.name) if instance is not None else f.default
            kind, optional = types[f.name]
            accepts = "true | false" if kind is bool else b.text()
            rows.append(
                {
                    "field": f.name,
                    "value": value,
                    "default": f.default,
                    "accepts": accepts + (" | None" if optional else ""),
                    "help": b.help,
                }
            )
        return rows

    def changed(self) -> dict[str, Any]:
        """The fields whose value differs from the default (a compact label for tables)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
            if _bounds(f) is not None and getattr(self, f.name) != f.default
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
