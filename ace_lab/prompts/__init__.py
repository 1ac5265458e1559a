"""Prompt templates, one file per prompt, loaded by name.

A prompt file has a ``[system]`` section (fixed instructions) and a ``[user]`` section (a
``str.format`` template for the variable content). Keeping the fixed part first and the
variable part last lets an inference server reuse its cached prompt prefix across calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

_SECTION = re.compile(r"^\[(system|user)\]\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Prompt:
    name: str
    system: str
    user: str

    def messages(self, **variables: object) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user.format(**variables)},
        ]


@cache
def load_prompt(name: str) -> Prompt:
    """The prompt in ``ace_lab/prompts/<name>.txt``."""
    path = resources.files(__package__) / f"{name}.txt"
    if not path.is_file():
        available = sorted(
            p.name[:-4] for p in resources.files(__package__).iterdir() if p.name.endswith(".txt")
        )
        raise KeyError(f"no prompt named {name!r}; available: {available}")
    text = path.read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    sections = dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))
    if set(sections) != {"system", "user"}:
        raise ValueError(f"prompt file {path} needs exactly one [system] and one [user] section")
    return Prompt(name=name, system=sections["system"], user=sections["user"])
