"""ArcRAG: query-local graph interfaces, planned and repaired read-only Cypher, witnesses.

One retrieval procedure over any labelled property graph (Arun et al., 2026, Algorithm 1): the
graph's schema ``S_G`` is read by introspection (:mod:`~ace_lab.arc.schema`); per pass, search
phrases seed a hybrid index and name anchors (:mod:`~ace_lab.arc.retrieve`), explorers induce the
query-local interface ``Ŝ_q`` (:mod:`~ace_lab.arc.explore`, :mod:`~ace_lab.arc.interface`), a
planner emits subplans (:mod:`~ace_lab.arc.plan`), the generator compiles, checks and refines one
Cypher per subplan (:mod:`~ace_lab.arc.generate`, run by :mod:`~ace_lab.arc.execute`), acceptable
results join the witness (:mod:`~ace_lab.arc.witness`) and the answer is composed and judged
(:mod:`~ace_lab.arc.answer`). :mod:`~ace_lab.arc.method` runs the loop; :mod:`~ace_lab.arc.budget`
holds the frozen budget. Each step records a typed payload (:mod:`ace_lab.arc.steps`), which
:mod:`~ace_lab.arc.report` shows (notebook 04's tables and views, the stepper's step views).
Nothing here names a label, type or property of our own constructions.
"""
