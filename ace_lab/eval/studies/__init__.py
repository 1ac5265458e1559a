"""ace_lab.eval.studies: estimate, identity, jsonl, record, runner, study, throughput."""
