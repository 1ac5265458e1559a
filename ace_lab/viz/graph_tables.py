"""Tables that describe a graph for the notebooks: community reports, the induced schema,
synonym pairs, what a store's schema introspection returns, and the seed hits of a question.

Each returns a ``pandas.DataFrame`` a notebook displays as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ace_lab.graph.seeds import SeedIndexes
from ace_lab.graph.tables import GraphTables


def community_reports(tables: GraphTables, top: int = 8) -> pd.DataFrame:
    """The ``top`` largest communities: name, report (description) and member count."""
    communities = tables.nodes_with_label("Community")
    sizes = tables.edges_of_type("IN_COMMUNITY").groupby("target").size().rename("members")
    reports = communities.set_index("id")[["name", "description"]].join(sizes)
    return reports.sort_values("members", ascending=False).head(top)


def induced_schema(tables: GraphTables) -> pd.DataFrame:
    """The typed family's induced schema: node types and relation types side by side."""
    schema = tables.meta.get("schema", {})
    return pd.DataFrame(
        {
            "node types": pd.Series(schema.get("node_types", [])),
            "relation types": pd.Series(schema.get("relation_types", [])),
        }
    ).fillna("")


def synonym_pairs(tables: GraphTables, top: int = 10) -> pd.DataFrame:
    """The first ``top`` ``SYNONYM`` edges as (a, b, cosine) name pairs."""
    synonyms = tables.edges_of_type("SYNONYM")
    names = tables.nodes.set_index("id")["name"]
    return pd.DataFrame(
        {
            "a": names.reindex(synonyms["source"]).values,
            "b": names.reindex(synonyms["target"]).values,
            "cosine": synonyms["weight"].round(3).values,
        }
    ).head(top)


def introspection_table(schemas: Mapping[str, Any]) -> pd.DataFrame:
    """One column per graph: the node labels, relationship types and property keys its store's
    schema introspection returned (``GraphStore.schema()`` results, keyed by graph name)."""
    return pd.DataFrame(
        {
            name: {
                "node labels": ", ".join(s.node_labels),
                "relationship types": ", ".join(s.relationship_types),
                "property keys": ", ".join(s.property_keys),
            }
            for name, s in schemas.items()
        }
    )


def seed_hits(indexes: SeedIndexes, question: Any, k: int = 5, width: int = 90) -> pd.DataFrame:
    """The ``k`` passages the hybrid index ranks first for ``question`` (a ``Question``): fused
    score, dense and sparse ranks, whether the passage supports the answer, a text preview."""
    hits = indexes.passages.search(question.question, k=k)
    return pd.DataFrame(
        [
            {
                "chunk": h.id,
                "score": round(h.score, 4),
                "dense_rank": h.dense_rank,
                "sparse_rank": h.sparse_rank,
                "supporting": h.id in question.supporting_ids,
                "text": indexes.passages.text(h.id)[:width],
            }
            for h in hits
        ]
    )
