"""What produced a record: the answering model's identity and the method's configuration hash.

Every record :func:`ace_lab.eval.studies.runner.run` writes carries both (``model_identity``,
``config_hash``), so a results file says per line which model and which configuration answered,
and a run can tell whether a study's records are comparable with its own before it appends to
them (:func:`ace_lab.eval.studies.study.method_identities`). Records written before these fields
existed take the identity their study's manifest names for the method.

The configuration hash is a SHA-256 over a canonical JSON description of the method
(:func:`method_configuration`): its name, graph family and every field of each bounded
configuration object it runs with (the ones ``ace-lab methods --describe`` lists), nested
configurations included. Keys are sorted and floats printed by ``repr``, so one configuration
hashes the same on every machine and in every process. A switch added to a configuration after
records were written is listed in its class's ``HASH_OMITS_AT_DEFAULT`` and left out while it
holds its default (the old behaviour), so existing names keep their hashes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ace_lab.bounded import field_default

if TYPE_CHECKING:  # only a type: hashing a configuration never needs the LLM client
    from ace_lab.llm import LLM

#: Hex digits of the SHA-256 kept in a record (64 bits: no collision among configurations).
HASH_DIGITS = 16


def method_configuration(method: str) -> dict[str, Any]:
    """The canonical description of ``method``: name, graph family and each configuration
    object's type and fields (nested configurations as objects), JSON-able."""
    from ace_lab.registry import spec  # the registry imports every method: only when hashing

    found = spec(method)
    return {
        "method": found.name,
        "family": found.family,
        "configs": [
            {"type": type(config).__name__, "fields": configuration_fields(config)}
            for config in found.configs
        ],
    }


def configuration_fields(config: Any) -> dict[str, Any]:
    """``dataclasses.asdict(config)`` less the fields named in the class's
    ``HASH_OMITS_AT_DEFAULT`` while they hold their default (nested configurations alike): a
    switch added later whose default is the old behaviour leaves every existing hash as it was."""
    described = dataclasses.asdict(config)
    _omit_defaults(config, described)
    return described


def _omit_defaults(config: Any, described: dict[str, Any]) -> None:
    omitted = getattr(type(config), "HASH_OMITS_AT_DEFAULT", ())
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if f.name in omitted and value == field_default(f):
            del described[f.name]
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            _omit_defaults(value, described[f.name])


def config_hash(method: str) -> str:
    """A stable hash of ``method``'s resolved configuration (:func:`method_configuration`)."""
    return hash_of(method_configuration(method))


def hash_of(described: dict[str, Any]) -> str:
    """The configuration hash of a description shaped like :func:`method_configuration`'s."""
    text = json.dumps(described, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_DIGITS]


@dataclass(frozen=True)
class RunIdentity:
    """Who answers a run: the model's short label, its full identity, the configuration hash."""

    model: str
    model_identity: str
    config_hash: str

    @classmethod
    def of(cls, llm: LLM, method: str) -> RunIdentity:
        return cls(llm.model, llm.model_identity, config_hash(method))

    def fields(self) -> dict[str, str]:
        """What every record of the run carries."""
        return {"model_identity": self.model_identity, "config_hash": self.config_hash}


def short_identity(identity: str | None, width: int = 72) -> str:
    """``identity`` cut to ``width`` characters for one-line messages (``?`` when unknown)."""
    text = identity or "?"
    return text if len(text) <= width else text[: width - 1] + "…"


def identity_digest(*parts: str | None) -> str:
    """Eight hex digits naming a combination of identities (a study-name suffix)."""
    text = "\n".join(part or "" for part in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
