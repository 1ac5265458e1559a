"""ace_lab.graph.typed.models: the schema reaches the server as enums and bounds."""

from __future__ import annotations

from ace_lab.graph.typed import TypedConfig
from tests.support.extraction import TYPED_NODE_TYPES, TYPED_RELATION_TYPES, typed_prompt_of
from tests.support.graphs import build_typed_scripted


def test_enums_reach_the_server(settings, tmp_path, first_toy_chunks):
    _, client = build_typed_scripted(settings, tmp_path / "run", first_toy_chunks)
    extract = next(r for r in client.requests if typed_prompt_of(r) == "typed_extract")
    schema = extract["response_format"]["json_schema"]["schema"]
    triple = schema["$defs"]["TypedTriple"]["properties"]
    assert triple["subject_type"]["enum"] == TYPED_NODE_TYPES
    assert triple["object_type"]["enum"] == TYPED_NODE_TYPES
    assert triple["relation"]["enum"] == TYPED_RELATION_TYPES
    assert schema["properties"]["triples"]["maxItems"] == TypedConfig().max_triples
    assert (
        "Entity types: Person, Organization, Place, SportsTeam"
        in extract["messages"][-1]["content"]
    )

    reflect = next(r for r in client.requests if typed_prompt_of(r) == "typed_reflect")
    schema = reflect["response_format"]["json_schema"]["schema"]
    verdicts = schema["properties"]["verdicts"]
    assert verdicts["minItems"] == verdicts["maxItems"] == 3
    assert verdicts["items"]["enum"] == ["keep", "drop", "repair"]
    assert schema["$defs"]["Repair"]["properties"]["relation"]["enum"] == TYPED_RELATION_TYPES
    assert "2. Ilse Marrin (Person) BORN_IN Atlantis (Place)" in reflect["messages"][-1]["content"]
