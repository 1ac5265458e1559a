"""The one grammar of method names: ``head[:variant][@family][/policy]``.

- ``head`` — the method or named configuration: ``hirag``, ``ace-full``, ``arcrag-explorer``,
  ``mosaic-fixed`` (lower-case words joined by ``-``);
- ``:variant`` — the head's argument: an ACE policy label (``ace-fixed:gap+depth``) and/or
  adaptation budget (``ace-full:b1500``, ``ace-fixed:gap+depth+b1500``), an ArcRAG
  budget (``arcrag:r3p5``), a MOSAIC width or budget × depth (``mosaic-fixed:narrow``,
  ``mosaic-budget-matched:12x2``);
- ``@family`` — the graph family read (``@openie``, ``@typed``, ``@hierarchical``, the view
  ``@openie-bare``) or, for ACE, the retrieval backbone (``@hirag``, ``@graphrag``);
- ``/policy`` — one fixed exploration or context policy for every query: ``ace/gap+depth`` and
  ``mosaic/narrow`` are other spellings of ``ace-fixed:gap+depth`` and ``mosaic-fixed:narrow``;
  or an ACE method (``head[:variant]``, e.g. ``ace-full``, ``ace-fixed:gap+depth``) run over the
  evidence of the method before the ``/`` (a composition: ``mosaic/ace-full``,
  ``hipporag@hierarchical/ace-adaptive``).

The policy separator is ``/`` because no shell reads it: the first spelling, ``>``
(``mosaic>ace-full``), is a redirect unless quoted, so ``--method mosaic>ace-full`` ran plain
``mosaic`` and wrote a file ``ace-full``. ``/`` is the one character that is safe unquoted in
bash, zsh (``~``, ``^`` and ``#`` are glob operators under its ``extendedglob``), fish and
PowerShell (``,`` builds an array there) and that no other part of a name uses (``+`` joins
variant tokens, ``-`` words, ``.`` and ``=`` read as attribute and assignment, and
``ace-lab rename`` takes ``OLD=NEW``), so a name still splits one way. ``>`` is still parsed
(quoted: ``'mosaic>ace-full'``) and is how records, tables and :class:`MethodName`'s ``str``
write a name: both spellings are one method with one record file, and
:func:`record_spelling` turns a typed name into the written one.

This module only splits and joins names; what each part means for a method is decided where
the registry resolves the head (``ace_lab.ace.specs``, ``.arc``, ``.mosaic``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GRAMMAR = "head[:variant][@family][/policy]"
#: The policy separator to type (shell-safe) and the one records and tables write (``>``).
POLICY_SEPARATOR, RECORDED_POLICY_SEPARATOR = "/", ">"
_HEAD = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*"
_ARG = r"[a-z0-9][a-z0-9+]*"
#: A fixed policy (``gap+depth``, ``narrow``, ``12x3``) or a method's ``head[:variant]``.
_POLICY = rf"{_ARG}|{_HEAD}(?::{_ARG})?"
#: A graph family or backbone: a word, or words joined by ``-`` (a view: ``openie-bare``).
_FAMILY = r"[a-z]+(?:-[a-z]+)*"
_PARTS = {"head": _HEAD, "variant": _ARG, "family": _FAMILY, "policy": _POLICY}
_NAME = re.compile(
    rf"(?P<head>{_HEAD})(?::(?P<variant>{_ARG}))?(?:@(?P<family>{_FAMILY}))?"
    rf"(?:[/>](?P<policy>{_POLICY}))?"
)
#: The separator written before each optional part.
_SEPARATORS = (("variant", ":"), ("family", "@"), ("policy", RECORDED_POLICY_SEPARATOR))


@dataclass(frozen=True)
class MethodName:
    """A parsed method name; ``str()`` writes it back exactly (``""`` = part absent)."""

    head: str
    variant: str = ""
    family: str = ""
    policy: str = ""

    def __post_init__(self) -> None:
        for part, pattern in _PARTS.items():
            value = getattr(self, part)
            if (value or part == "head") and re.fullmatch(pattern, value) is None:
                raise KeyError(f"malformed {part} {value!r} in a method name; use {GRAMMAR}")

    def __str__(self) -> str:
        optional = (f"{sep}{getattr(self, part)}" for part, sep in _SEPARATORS)
        return self.head + "".join(text for text in optional if len(text) > 1)


def parse(name: str) -> MethodName:
    """The parts of ``name`` (a ``KeyError`` names the grammar when it does not fit)."""
    match = _NAME.fullmatch(name)
    if match is None:
        raise KeyError(f"malformed method name {name!r}; the grammar is {GRAMMAR}")
    return MethodName(**{part: value or "" for part, value in match.groupdict().items()})


def head_of(name: str) -> str:
    """The head of ``name`` (the text before its first ``:``, ``@``, ``/`` or ``>``); never
    raises, so it can sort table rows that are not method names."""
    return re.split(r"[:@/>]", name, maxsplit=1)[0]


def record_spelling(name: str) -> str:
    """``name`` as records and tables write it: ``mosaic/ace-full`` → ``mosaic>ace-full``
    (every other part as typed); a name outside the grammar is returned as it is, for the
    registry's lookup to name the problem."""
    try:
        return str(parse(name))
    except KeyError:
        return name
