"""ace_lab.eval.reporting: docs_numbers, export, plots, report, tables."""
