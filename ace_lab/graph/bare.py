"""The provenance-free OpenIE graph (``openie-bare``): the paper's open-vocabulary graph.

ArcRAG's open-vocabulary graphs have untyped nodes, one relationship type carrying the free-text
predicate as a property, and no link back to the text they were read from. Our OpenIE family
keeps that link (``Chunk`` nodes, ``MENTIONED_IN`` edges, ``source_ids`` on every row), which
makes it chunk-backed; ``openie-bare`` is a *view* of an OpenIE build with the provenance
stripped:

- nodes: the ``Entity`` phrases only (every one, also those no triple uses), ``source_ids`` empty;
- edges: the ``RELATION`` triples only (predicate as a property), ``source_ids`` empty;
- dropped: ``Chunk`` nodes, ``MENTIONED_IN`` edges, and the embedding-made ``SYNONYM`` edges (a
  second relationship type, and not an extracted triple).

The view makes no LLM call and has no build of its own: :func:`ace_lab.graph.build.load_graph`
reads the OpenIE build and applies :func:`bare_view`, and the OpenIE build's entity and
relation indexes serve it unchanged (their documents are the same rows; there are no passages
to index). Its ``meta["provenance"]`` is ``False``, so the store is loaded without a
``source_ids`` property (:mod:`ace_lab.graph.store.load_plan`).
"""

from __future__ import annotations

from ace_lab.graph.tables import GraphTables, GraphTablesError

#: The view's family name and the built family it is derived from.
BARE_FAMILY = "openie-bare"
SOURCE_FAMILY = "openie"
#: The one node label and the one relationship type the view keeps.
NODE_LABEL = "Entity"
RELATION_TYPE = "RELATION"
#: Families that are views of another family's build: view → the family that is built.
VIEWS: dict[str, str] = {BARE_FAMILY: SOURCE_FAMILY}


def view_source(family: str) -> str:
    """The family whose build ``family`` reads: itself, or the built family of a view."""
    return VIEWS.get(family, family)


def as_family(family: str, tables: GraphTables) -> GraphTables:
    """``tables`` (a build of :func:`view_source` of ``family``) as ``family`` sees them."""
    return bare_view(tables) if family == BARE_FAMILY else tables


def bare_view(tables: GraphTables) -> GraphTables:
    """``tables`` (an OpenIE graph) without passages, chunk links, synonyms or ``source_ids``."""
    family = tables.meta.get("family")
    if family != SOURCE_FAMILY:
        raise GraphTablesError(f"the {BARE_FAMILY} view needs an openie graph, not {family!r}")
    nodes = tables.nodes[tables.nodes["label"] == NODE_LABEL].copy()
    edges = tables.edges[tables.edges["type"] == RELATION_TYPE].copy()
    nodes["source_ids"] = [() for _ in range(len(nodes))]
    edges["source_ids"] = [() for _ in range(len(edges))]
    dropped_nodes = tables.nodes.loc[~tables.nodes.index.isin(nodes.index), "label"]
    dropped_edges = tables.edges.loc[~tables.edges.index.isin(edges.index), "type"]
    meta = {k: v for k, v in tables.meta.items() if k != "counts"} | {
        "family": BARE_FAMILY,
        "derived_from": SOURCE_FAMILY,
        "provenance": False,
        "dropped": {
            "node_labels": dropped_nodes.value_counts().to_dict(),
            "edge_types": dropped_edges.value_counts().to_dict(),
            "source_ids": True,
        },
    }
    view = GraphTables(nodes.reset_index(drop=True), edges.reset_index(drop=True), meta)
    view.validate()
    return view
