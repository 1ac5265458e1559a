"""Evaluation, generic over methods (it imports no method package), by concept:

- ``metrics``: EM/F1, coverage and recovery, the two recalls, context statistics;
- ``statistics``: bootstrap intervals, permutation tests, the oracle and shuffled controls;
- ``studies``: one question's record, a study's files and manifest, the runner, model
  identities, cost estimates;
- ``judging``: the pairwise LLM judge and its stored verdicts, semantic equivalence;
- ``graphragbench``: the GraphRAG-Bench metrics, their judge, ROUGE-L, stored scores, plots;
- ``reporting``: result tables, export (markdown/LaTeX/CSV), the notebooks' report and plots,
  and the documentation's generated numbers.

A method's own tables, figures and views live in its report package (``ace_lab.ace.report``,
``ace_lab.arc.report``, ``ace_lab.mosaic.report``).
"""
