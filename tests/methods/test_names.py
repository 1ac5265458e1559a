"""ace_lab.methods.names: one grammar ``head[:variant][@family][/policy]`` for every method
name (``>`` still read); every name in the committed records parses, writes back exactly and
resolves."""

from __future__ import annotations

import json

import pytest

from ace_lab.ace.policy import fixed_policies
from ace_lab.methods.names import record_spelling
from ace_lab.registry import (
    GRAMMAR,
    METHODS,
    MethodName,
    canonical_name,
    head_of,
    parse,
    spec,
)
from tests.support.paths import REPO

RESULTS = REPO / "results"


def committed_method_names() -> set[str]:
    """Every distinct ``method`` of the committed per-question records."""
    names = set()
    for path in RESULTS.rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            if isinstance(record, dict) and isinstance(record.get("method"), str):
                names.add(record["method"])
    return names


def test_the_grammar_splits_every_part():
    assert GRAMMAR == "head[:variant][@family][/policy]"
    assert parse("hirag") == MethodName("hirag")
    assert parse("ace-fixed:gap+depth+prune@graphrag") == MethodName(
        "ace-fixed", "gap+depth+prune", "graphrag"
    )
    assert parse("arcrag-explorer:r1p3@openie") == MethodName("arcrag-explorer", "r1p3", "openie")
    assert parse("mosaic-budget-matched:12x2") == MethodName("mosaic-budget-matched", "12x2")
    assert parse("ace@graphrag>gap+depth") == MethodName("ace", "", "graphrag", "gap+depth")
    assert str(MethodName("mosaic", policy="narrow")) == "mosaic>narrow"
    assert head_of("arcrag:r3p5@openie") == "arcrag" and head_of("ace>depth") == "ace"
    assert head_of("oracle best fixed") == "oracle best fixed"  # never raises


def test_the_shell_safe_separator_is_the_recorded_one_spelt_otherwise():
    # "/" is typed (no shell reads it); ">" is what records and tables write, still parsed
    assert (
        parse("mosaic/ace-full")
        == parse("mosaic>ace-full")
        == MethodName("mosaic", policy="ace-full")
    )
    composed = "hipporag@hierarchical/ace-fixed:gap+depth"
    assert parse(composed) == MethodName("hipporag", "", "hierarchical", "ace-fixed:gap+depth")
    assert record_spelling(composed) == "hipporag@hierarchical>ace-fixed:gap+depth"
    assert record_spelling("arcrag:r1p1@openie/ace-adaptive") == "arcrag:r1p1@openie>ace-adaptive"
    assert record_spelling("ace-full") == "ace-full" and record_spelling("Bad Name") == "Bad Name"
    assert head_of("mosaic/ace-full") == "mosaic"
    # one method, one record file, whichever way it was typed
    assert spec("mosaic/ace-full").name == spec("mosaic>ace-full").name == "mosaic>ace-full"
    assert spec("ace/gap+depth").name == "ace-fixed:gap+depth"


def test_no_shell_reads_the_separator(tmp_path):
    # bash -c 'printf %s <name>' unquoted: the name arrives as typed, no file is created
    import subprocess

    name = "hipporag@hierarchical/ace-fixed:gap+depth"
    done = subprocess.run(["bash", "-c", f"printf %s {name}"], cwd=tmp_path, capture_output=True)
    assert done.stdout.decode() == name and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "Hirag",
        "ace-full@",
        "ace::depth",
        "arcrag@openie:r1p1",
        "a b",
        "ace>gap>depth",
        "a//b",
        "mosaic/ace-full>narrow",
    ],
)
def test_malformed_names_name_the_grammar(bad):
    with pytest.raises(KeyError, match=r"grammar|malformed"):
        parse(bad)
    with pytest.raises(KeyError):
        spec(bad)


def test_every_committed_and_registered_name_round_trips_and_resolves():
    names = committed_method_names()
    assert len(names) > 40 and {"ace-full@graphrag", "arcrag:r1p1@openie"} <= names
    for name in sorted(names | set(METHODS)):
        assert str(parse(name)) == name, name
        resolved = spec(name)
        assert resolved.name == name and resolved.report in {
            "",
            "ace_lab.ace.report",
            "ace_lab.arc.report",
            "ace_lab.mosaic.report",
        }, name


def test_policy_spellings_resolve_to_the_canonical_method():
    assert canonical_name("ace>gap+depth") == "ace-fixed:gap+depth"
    assert canonical_name("ace@graphrag>depth") == "ace-fixed:depth@graphrag"
    assert spec("ace>gap+depth").configs == spec("ace-fixed:gap+depth").configs
    assert canonical_name("mosaic>narrow") == "mosaic-fixed:narrow"
    assert canonical_name("mosaic@openie>12x3") == "mosaic-budget-matched:12x3@openie"
    assert spec("mosaic>12x3").configs == spec("mosaic-budget-matched:12x3").configs
    bad_names = (
        "ace-full>depth",
        "hirag>depth",
        "mosaic-fixed:wide>narrow",
        "ace>sideways",
        "mosaic>huge",
    )
    for bad in bad_names:
        with pytest.raises((KeyError, ValueError)):
            spec(bad)


def test_every_fixed_ace_policy_label_names_a_method():
    """The stepper builds a toggled policy as ``ace-fixed:<label>`` through the registry."""
    for label, policy in fixed_policies().items():
        for backbone in ("", "@hirag", "@graphrag"):
            found = spec(f"ace-fixed:{label}{backbone}")
            assert found.configs[1] == policy and found.name == f"ace-fixed:{label}{backbone}"
