"""The store's errors: what a caller of ``load``/``read`` may have to catch.

They sit below every other store module because the read-only guard, the load plan and the
backends all raise them; :class:`StoreError` is the base a caller catches to handle them all.
"""

from __future__ import annotations


class StoreError(RuntimeError):
    """The store cannot serve the request (server did not start, graph missing, bad Cypher)."""


class WriteQueryError(StoreError):
    """A query given to ``read`` would modify the graph (or could not be proven not to)."""


class UnsafeQueryError(StoreError):
    """A read was refused before execution: control characters or text that is not UTF-8,
    parameters that cannot be sent safely, a ``range()`` or ``LIMIT`` too large to bound."""


class QueryTimeout(StoreError, TimeoutError):
    """A read query ran past its ``timeout_ms`` and was aborted by the server."""


class ResourceLimitError(StoreError):
    """A read needed more memory, or a larger reply, than the store allows; it was aborted."""
