"""A method name the shell cut at ``>``: unquoted, ``--method mosaic>ace-full`` runs ``mosaic``
with its output redirected to a new file named ``ace-full``, and exits 0.

The command never sees the ``>``, but it can see where its output goes: when stdout is a regular
file whose name completes one of the given methods into a name the registry resolves
(``mosaic`` + ``>`` + ``ace-full``), that is this mistake, and the command stops before any work
with one line on stderr naming the shell-safe spelling (``mosaic/ace-full``). Where the file's
name cannot be read (no ``/proc``), nothing is checked.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

from ace_lab.cli_commands.errors import UsageError


def stdout_file_name() -> str | None:
    """The name of the regular file stdout writes to; None for a terminal, a pipe, or where
    the name cannot be read."""
    try:
        descriptor = sys.stdout.fileno()
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        return Path(os.readlink(f"/proc/self/fd/{descriptor}")).name
    except (OSError, ValueError, AttributeError):  # no descriptor (captured), no /proc
        return None


def check_not_cut_at_redirect(methods: Iterable[str], output: str | None = None) -> None:
    """A :class:`UsageError` when stdout's file (``output``: its name; default: read it) and a
    method of ``methods`` make one method name joined by ``>``."""
    from ace_lab.registry import spec

    output = stdout_file_name() if output is None else output
    if not output:
        return
    for method in methods:
        try:
            spec(f"{method}>{output}")
        except (KeyError, ValueError):
            continue
        raise UsageError(
            f"the output goes to a new file {output!r}: the shell read {method}>{output} as "
            f"'{method}' and a redirect; write {method}/{output} (or quote it) and remove that file"
        )
