"""Reading judge-model verdicts: pure parsing, no model calls."""

from creval.judges.rubric import (
    TTCT_CRITERIA_EN,
    TTCT_CRITERIA_JA,
    Criterion,
    RubricParse,
    parse_rubric,
    upstream_jcq_parse,
)

__all__ = [
    "TTCT_CRITERIA_EN",
    "TTCT_CRITERIA_JA",
    "Criterion",
    "RubricParse",
    "parse_rubric",
    "upstream_jcq_parse",
]
