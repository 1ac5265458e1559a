"""What the ``ace-lab`` error boundary treats as a known error, and how it says it in one line.

A *known* error is one a person can fix from its message — a mistyped name, a missing or broken
file, a bad setting, an endpoint that does not answer — so ``ace-lab`` prints it as one line
(``ace-lab: error: <message>``) and exits 2 (:class:`UsageError`: the command line itself is
wrong) or 1 (anything else). Every other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys

#: Exit status of a command line that is wrong in itself (argparse's own convention).
EXIT_USAGE = 2
#: Exit status of a known error that is not a usage error, and of a bug.
EXIT_ERROR = 1
#: Exit status after Ctrl-C (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """The command line is wrong: an unknown name, conflicting or missing arguments."""


class RunFailed(RuntimeError):
    """Every question a run tried failed, so it wrote nothing (said in one line, exit 1)."""


#: Known error classes by the module that defines them. An error of a module that was never
#: imported cannot have been raised, so the boundary looks classes up in ``sys.modules`` instead
#: of importing the LLM client, the graph store and the data loaders only to name them.
KNOWN_ERRORS: dict[str, tuple[str, ...]] = {
    "ace_lab.bounded": ("ConfigError",),
    "ace_lab.data.records": ("DataError",),
    "ace_lab.llm.client": ("LLMError",),
    "ace_lab.llm.models": ("ModelError",),
    "ace_lab.llm.server": ("ServerError",),
    "ace_lab.eval.studies.jsonl": ("ResultsError",),
    "ace_lab.eval.studies.study": ("ResultsError",),
    "ace_lab.eval.reporting.docs_numbers": ("DocsError",),
    "ace_lab.graph.tables": ("GraphTablesError",),
    "ace_lab.graph.store.errors": ("StoreError",),
    "ace_lab.index.hybrid": ("IndexMismatchError",),
    # A request the endpoint refused at once (wrong key, unknown model, bad request): the
    # client adds a note naming the call and the endpoint and raises it unchanged.
    "openai": ("APIError",),
}


def known_error_types() -> tuple[type[BaseException], ...]:
    """The known error classes of the modules loaded so far (plus a missing file)."""
    found: list[type[BaseException]] = [UsageError, RunFailed, FileNotFoundError]
    for module_name, names in KNOWN_ERRORS.items():
        module = sys.modules.get(module_name)
        found.extend(getattr(module, name) for name in names if hasattr(module, name))
    return tuple(found)


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` (and its notes) on one line, credentials in URLs masked."""
    from ace_lab.config import redact_url

    # A KeyError's str() is the repr of its key: show the message itself.
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    notes = [n for n in getattr(exc, "__notes__", ()) if isinstance(n, str)]
    parts = [*notes, str(text) or type(exc).__name__]
    lines = (line.strip() for part in parts for line in part.splitlines())
    return redact_url("; ".join(line for line in lines if line))


def exit_status(exc: BaseException) -> int:
    """2 for a usage error, 1 for any other known error."""
    return EXIT_USAGE if isinstance(exc, UsageError) else EXIT_ERROR
