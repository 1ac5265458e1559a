"""MOSAIC (Lee et al., 2026): an analyzer writes a bounded per-query exploration policy that one
shared graph-retrieval pipeline executes — policy, analyzer, view, seeds, scoring, traverse,
stopping, select, method; ``report`` holds its tables, figures and stepper views."""
