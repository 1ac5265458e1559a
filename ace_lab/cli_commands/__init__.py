"""The ``ace-lab`` commands behind :mod:`ace_lab.cli` (which parses, dispatches and holds the
one error boundary). One concept per module:

* :mod:`~ace_lab.cli_commands.errors`: :class:`UsageError` and which errors are *known* (printed
  as one line) rather than bugs (printed with their traceback);
* :mod:`~ace_lab.cli_commands.checks`: validation before any LLM or server starts — method,
  data set, slice size, tier, base URL, and a bounded probe of a remote endpoint;
* :mod:`~ace_lab.cli_commands.answering`: ``build``, ``ask`` and ``run``;
* :mod:`~ace_lab.cli_commands.studies`: ``report``, ``judge``, ``semantic``, ``grb-score``,
  ``rename``;
* :mod:`~ace_lab.cli_commands.methods`: ``methods`` (every name, or one method's settings);
* :mod:`~ace_lab.cli_commands.datasets`: ``data``, ``data fetch`` and ``corpus add|list|remove``;
* :mod:`~ace_lab.cli_commands.llm`: ``llm prepare|start|stop|status|ping|build-native``;
* :mod:`~ace_lab.cli_commands.docs`: ``docs`` (the documentation's generated numbers).

Handlers import what they use inside the function, so ``ace-lab --help`` and a mistyped name
answer without loading the methods, the LLM client or the data.
"""
