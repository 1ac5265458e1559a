"""ace_lab.eval.judging: equivalence, judge, semantic, stored."""

from ace_lab.eval.judging.stored import (
    JUDGE_DIR,
    PREFERENCE_VIEW,
    TABLE_CRITERIA,
    describe_preferences,
    judge_command,
    judge_study,
    load_verdicts,
    preference_by_variant,
    preference_table,
    run_command,
    verdicts_of,
    verdicts_path,
)

__all__ = [
    "JUDGE_DIR",
    "PREFERENCE_VIEW",
    "TABLE_CRITERIA",
    "describe_preferences",
    "judge_command",
    "judge_study",
    "load_verdicts",
    "preference_by_variant",
    "preference_table",
    "run_command",
    "verdicts_of",
    "verdicts_path",
]
