"""ace_lab.eval.studies.identity: the configuration hash is stable across processes and tells
configurations apart; a run's identity is what its records carry."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from typing import ClassVar

from ace_lab.bounded import Bounded, bounded
from ace_lab.eval.studies.identity import (
    RunIdentity,
    config_hash,
    configuration_fields,
    identity_digest,
    method_configuration,
)
from ace_lab.llm import LLM
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient

METHODS = ("naive", "ace-adaptive", "ace-fixed:gap+depth", "mosaic", "arcrag:r1p1@openie")


def test_the_hash_is_the_same_in_another_process():
    here = [config_hash(m) for m in METHODS]
    code = (
        "from ace_lab.eval.studies.identity import config_hash; "
        f"print(' '.join(config_hash(m) for m in {METHODS!r}))"
    )
    there = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
    ).stdout.split()
    assert there == here
    assert all(len(h) == 16 for h in here)


def test_other_configurations_hash_differently():
    hashes = {m: config_hash(m) for m in (*METHODS, "ace-full", "arcrag:r3p3@openie")}
    assert len(set(hashes.values())) == len(hashes)
    described = method_configuration("ace-adaptive")
    assert described["method"] == "ace-adaptive" and described["family"] == "hierarchical"
    ace = described["configs"][0]
    assert ace["type"] == "AceConfig" and ace["fields"]["mode"] == "adaptive"
    assert isinstance(ace["fields"]["adapt"], dict)  # nested configurations are described too


def test_a_run_identity_names_the_model_and_configuration(settings):
    llm = LLM(settings, client=ScriptedClient(ace_reply), model_identity="other-model")
    identity = RunIdentity.of(llm, "naive")
    assert identity.fields() == {
        "model_identity": "other-model",
        "config_hash": config_hash("naive"),
    }
    assert identity.model == llm.model
    assert identity_digest("a") != identity_digest("b") and len(identity_digest("a")) == 8


@dataclass(frozen=True)
class _Inner(Bounded):
    depth: int = bounded(2, lo=0, hi=9, help="how deep")
    added: bool = bounded(True, help="a switch added later")

    HASH_OMITS_AT_DEFAULT: ClassVar[tuple[str, ...]] = ("added",)


@dataclass(frozen=True)
class _Outer(Bounded):
    inner: _Inner = bounded(factory=_Inner, help="nested")
    later: str = bounded("old", choices=("old", "new"), help="added later")

    HASH_OMITS_AT_DEFAULT: ClassVar[tuple[str, ...]] = ("later",)


def test_switches_added_later_are_left_out_of_the_hash_while_at_their_default():
    assert configuration_fields(_Outer()) == {"inner": {"depth": 2}}
    changed = _Outer(inner=_Inner(added=False), later="new")
    assert configuration_fields(changed) == {"inner": {"depth": 2, "added": False}, "later": "new"}
