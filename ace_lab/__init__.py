"""ace_lab: adaptive GraphRAG research suite (ACE-GraphRAG, ArcRAG, MOSAIC and baselines)."""

__version__ = "0.1.0"
