"""Environment variables, derived from the settings' field names by one function.

Every bounded field of :class:`~ace_lab.config.settings.Settings` has one variable,
``ACE_LAB_<SECTION>_<FIELD>`` (:func:`env_name`): the section is the top-level field holding
it (``llm``, ``embed``, ``graph``; none for the paths), nested options flatten into their
section (the server's ``serving.backend`` is ``ACE_LAB_LLM_BACKEND``), and a unit suffix
``_s`` is dropped (``timeout_s``: ``ACE_LAB_LLM_TIMEOUT``). :data:`ALIASES` keeps the few names
documented before the derivation. :func:`variables` lists them all, for the generated
``docs/configuration.md``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ace_lab.bounded import Bounded, Bounds, ConfigError, field_bounds
from ace_lab.config.settings import Settings

PREFIX = "ACE_LAB"
#: Field paths whose variable is not the derived name: names documented before the derivation
#: (and the key variable every OpenAI client reads).
ALIASES: dict[str, str] = {
    "data_dir": "ACE_LAB_DATA",
    "llm.ctx_size": "ACE_LAB_LLM_CTX",
    "llm.api_key": "OPENAI_API_KEY",
    "embed.api_key": "OPENAI_API_KEY",
}
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
B = TypeVar("B", bound=Bounded)


def env_name(section: str, name: str) -> str:
    """``ACE_LAB_<SECTION>_<NAME>`` in capitals (no section: ``ACE_LAB_<NAME>``), a unit
    suffix ``_s`` dropped: ``env_name("llm", "timeout_s") == "ACE_LAB_LLM_TIMEOUT"``."""
    stem = name.removesuffix("_s")
    return "_".join(part for part in (PREFIX, section, stem) if part).upper()


@dataclass(frozen=True)
class Variable:
    """One environment variable and the settings field it sets."""

    name: str
    path: str  # the field's place in Settings, e.g. "llm.serving.backend"
    owner: type[Bounded]
    field: dataclasses.Field

    @property
    def bounds(self) -> Bounds:
        bounds = field_bounds(self.field)
        assert bounds is not None  # only bounded fields become variables
        return bounds

    @property
    def kind(self) -> type | None:
        """int, float, bool, str or Path: what the text of the variable is read as."""
        if "Path" in str(self.field.type):
            return Path
        return self.owner._field_types()[self.field.name][0]

    @property
    def optional(self) -> bool:
        return self.owner._field_types()[self.field.name][1]

    def read(self, raw: str) -> Any:
        """The field's value from the variable's text; a one-line :class:`ConfigError` naming
        the variable and what it accepts when the text is not acceptable."""
        shown = self.bounds.show(raw)
        accepts = self.owner.describe_field(self.field.name)["accepts"]
        kind = self.kind
        value: Any = raw
        try:
            if kind is bool:
                if raw.strip().lower() not in _TRUE + _FALSE:
                    raise ValueError("is not true or false (1/0, true/false, yes/no, on/off)")
                value = raw.strip().lower() in _TRUE
            elif kind is int:
                value = int(raw)
            elif kind is float:
                value = float(raw)
            elif kind is Path:
                value = Path(raw)
        except ValueError as err:
            what = {int: "an integer", float: "a number"}.get(kind)  # type: ignore[call-overload]
            why = f"is not {what}" if what else str(err)
            raise ConfigError(
                f"{self.name}={shown} {why} ({self.path} accepts {accepts})"
            ) from None
        why = self.owner.field_problem(self.field.name, value)
        if why:
            raise ConfigError(f"{self.name}={shown} {why} ({self.path})")
        return value


def _section_class(f: dataclasses.Field) -> type[Bounded] | None:
    """The settings class of a nested section field (None for a bounded field)."""
    made = f.default_factory
    return made if isinstance(made, type) and issubclass(made, Bounded) else None


def _variable(cls: type[Bounded], f: dataclasses.Field, section: str, prefix: str) -> Variable:
    path = prefix + f.name
    return Variable(ALIASES.get(path) or env_name(section, f.name), path, cls, f)


def _variables(cls: type[Bounded], section: str, prefix: str) -> Iterator[Variable]:
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if field_bounds(f) is not None:
            yield _variable(cls, f, section, prefix)
        elif (inner := _section_class(f)) is not None:
            # A nested settings object: a section of its own at the top, flattened below.
            yield from _variables(inner, section or f.name, f"{prefix}{f.name}.")


def _prefix(section: str) -> str:
    return f"{section}." if section else ""


def variables(cls: type[Bounded] = Settings, section: str = "") -> list[Variable]:
    """Every environment variable of ``cls`` (default: all settings; a section's class with
    its ``section``, e.g. ``variables(EmbedSettings, "embed")``), in field order."""
    return list(_variables(cls, section, _prefix(section)))


def _build(cls: type[B], section: str, prefix: str, environ: Mapping[str, str]) -> B:
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if field_bounds(f) is not None:
            variable = _variable(cls, f, section, prefix)
            raw = environ.get(variable.name)
            if raw is not None and raw.strip():
                kwargs[f.name] = variable.read(raw)
        elif (inner := _section_class(f)) is not None:
            kwargs[f.name] = _build(inner, section or f.name, f"{prefix}{f.name}.", environ)
    return cls(**kwargs)


def from_env(cls: type[B], section: str = "", environ: Mapping[str, str] | None = None) -> B:
    """``cls`` (default: all settings; a section's class with its ``section``) from its
    defaults and the environment; an empty variable counts as unset."""
    return _build(cls, section, _prefix(section), os.environ if environ is None else environ)


def load_settings(**llm_overrides: object) -> Settings:
    """Defaults, then ``ACE_LAB_*`` environment variables (``docs/configuration.md`` lists
    them), then keyword overrides of the LLM settings."""
    settings = from_env(Settings)
    return settings.with_llm(**llm_overrides) if llm_overrides else settings


@dataclass(frozen=True)
class OtherVariable:
    """A variable read outside :class:`Settings`, where it is needed before settings exist."""

    name: str
    default: str
    accepts: str
    help: str
    read_by: str


#: Variables read where they are used, not settings fields: each names a place, not a value
#: the settings tree carries (names derived by :func:`env_name` all the same).
OTHER_VARIABLES: tuple[OtherVariable, ...] = (
    OtherVariable(
        env_name("", "user_data"),
        "the platform's user data folder (e.g. `~/.local/share/ace_lab`)",
        "a folder",
        "user corpora and fetched data sets, moved as a whole",
        "ace_lab.data.userdir",
    ),
    OtherVariable(
        env_name("fetch", "mirror"),
        "unset: each file's source",
        "an https:// or file:/// base URL",
        "fetch every data file from `<mirror>/<raw name>`",
        "ace_lab.data.fetch",
    ),
    OtherVariable(
        env_name("", "llama_server"),
        "`<model_dir>/../bin/llama-server` (built by `ace-lab llm build-native`)",
        "an executable file",
        "the native llama-server binary of the llama-server backend",
        "ace_lab.llm.serving",
    ),
    OtherVariable(
        env_name("llm", "replay_only"),
        "unset: off",
        "1 | true | yes (on); 0 | false | no (off)",
        "replayed blocks make no model call: a request no archive holds fails (notebook tests)",
        "ace_lab.llm.replay",
    ),
    OtherVariable(
        env_name("test", "bolt_url"),
        "unset: the test is skipped",
        "bolt://[user@]host:port[/database]",
        "a Neo4j/Memgraph server the Bolt round-trip test loads (password: graph.store_password)",
        "tests/graph/store/test_bolt.py",
    ),
    OtherVariable(
        env_name("", "reliability"),
        "fast",
        "full | fast",
        "the reliability tests' scale (`make reliability` sets full)",
        "tests/reliability",
    ),
)
