"""ace_lab.prompts: every prompt file loads, renders with exactly the variables its ``[user]``
template declares (``str.format`` fields), and leaves no placeholder unfilled."""

from __future__ import annotations

import re
import string
from importlib import resources

import pytest

from ace_lab.prompts import Prompt, load_prompt

PROMPT_NAMES = sorted(
    p.name.removesuffix(".txt")
    for p in resources.files("ace_lab.prompts").iterdir()
    if p.name.endswith(".txt")
)
#: A ``{name}`` / ``{name.attr}`` / ``{name[0]}`` / ``{name!r:>3}`` field left in a message.
PLACEHOLDER = re.compile(r"\{[A-Za-z_][\w.\[\]]*(?:![rsa])?(?::[^{}]*)?\}")


def declared(prompt: Prompt) -> set[str]:
    """The variables the user template needs, as ``str.format`` finds them."""
    fields = (f for _, f, _, _ in string.Formatter().parse(prompt.user) if f is not None)
    return {re.split(r"[.\[]", f, maxsplit=1)[0] for f in fields}


def test_there_are_prompt_files():
    assert len(PROMPT_NAMES) >= 10 and "answer_qa" in PROMPT_NAMES


@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_prompt_renders_with_its_declared_variables(name):
    prompt = load_prompt(name)
    assert prompt.name == name and prompt.system and prompt.user
    assert load_prompt(name) is prompt  # loaded once
    variables = declared(prompt)
    assert all(v.isidentifier() for v in variables), variables  # no positional "{}" fields
    values = {v: f"<<value of {v}>>" for v in variables}
    system, user = prompt.messages(**values)
    assert (system["role"], user["role"]) == ("system", "user")
    assert system["content"] == prompt.system  # the fixed part comes first, untouched
    for v, value in values.items():
        assert value in user["content"], v
    for message in (system, user):
        left = PLACEHOLDER.findall(message["content"])
        assert not left, f"{name} {message['role']}: unfilled {left}"
    assert "{{" not in user["content"] and "}}" not in user["content"]
    for missing in variables:  # every declared variable is needed
        with pytest.raises(KeyError, match=missing):
            prompt.messages(**{v: x for v, x in values.items() if v != missing})


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            n,
            marks=pytest.mark.xfail(
                strict=True,
                reason="the [system] section is not formatted, so its example shows doubled "
                "braces to the model (reported to the lead; fixing it changes the prompt)",
            ),
        )
        if n == "hirag_extract"
        else n
        for n in PROMPT_NAMES
    ],
)
def test_system_section_has_no_format_escapes(name):
    system = load_prompt(name).system
    assert "{{" not in system and "}}" not in system


def test_prompt_has_fixed_system_first_and_variables_last():
    prompt = load_prompt("ping")
    messages = prompt.messages()
    assert [m["role"] for m in messages] == ["system", "user"]
    with pytest.raises(KeyError, match="available"):
        load_prompt("no_such_prompt")
