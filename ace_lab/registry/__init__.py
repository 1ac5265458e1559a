"""Every method by name: one ``MethodSpec`` table for the baselines, ACE, ArcRAG and MOSAIC.

``make_method(name, graph, llm)`` is what ``ace-lab ask``, ``ace-lab run``, the stepper and the
notebooks call; ``ace-lab methods`` prints :func:`method_table`. A method is configuration here,
not a copied code path: each spec names the graph family it reads, whether it needs the Cypher
store, its configuration objects, its report package and a factory over the shared
``RetrievalGraph`` and ``LLM``. Methods receive those configuration objects, never a name.

Every name is parsed once, by one grammar (:mod:`ace_lab.methods.names`)::

    head[:variant][@family][>policy]

- ``ace-fixed:<label>`` — one fixed ACE policy for every query, e.g. ``ace-fixed:gap+depth``
  (also spelt ``ace>gap+depth``); ``<ace name>@graphrag`` (or ``@hirag``) — the same ACE
  configuration on another backbone (the paper's transfer experiment, Table 6a);
  ``<ace name>:b1500`` (``ace-fixed:<label>+b1500``) — its adaptation at a 1,500-token budget;
- ``mosaic-fixed:<width>``, ``mosaic-budget-matched:<budget>x<depth>`` and
  ``<mosaic name>@openie`` — MOSAIC's fixed policies and any MOSAIC method on the OpenIE graph;
- ``<arc head>[:strict+r<R>p<P>][@typed|@openie]`` — ArcRAG configurations (``arcrag``,
  ``arcrag-explorer``, ``arcrag-generator``, ``direct-cypher``) with ``+``-joined variant
  tokens (``strict``: the paper's ArcRAG, no scan template and no fallback passages; a
  retries × passes budget) and a graph family.
"""

from __future__ import annotations

from ace_lab.methods.names import GRAMMAR, MethodName, head_of, parse
from ace_lab.methods.spec import Factory, MethodSpec
from ace_lab.registry.specs import (
    METHODS,
    REGISTRY,
    canonical_name,
    describe_method,
    graph_family,
    make_method,
    method_table,
    report,
    spec,
)

__all__ = [
    "GRAMMAR",
    "METHODS",
    "REGISTRY",
    "Factory",
    "MethodName",
    "MethodSpec",
    "canonical_name",
    "describe_method",
    "graph_family",
    "head_of",
    "make_method",
    "method_table",
    "parse",
    "report",
    "spec",
]
