"""LLM judges: rubric parsing (JCQ/TTCT), the convergent judges of seed 001, the pairwise
novelty judge, and checks that a judge discriminates at all (:mod:`.discrimination`). Each
judge is a dataclass with one async ``evaluate``; model calls go through a ``generate``
callable (cached, counted and resumable inside a run)."""

from creval.judges.criteria import DOMAIN_CRITERIA, JudgeCriterion, JudgeVerdict, criteria_for
from creval.judges.debate import ChatEvalJudge
from creval.judges.discrimination import (
    check_rubric,
    follows_criterion_order,
    no_variance,
    position_bias,
)
from creval.judges.multiagent import MultiAgentJudge
from creval.judges.novelty import PairwiseNoveltyJudge
from creval.judges.rubric import (
    TTCT_CRITERIA_EN,
    TTCT_CRITERIA_JA,
    Criterion,
    RubricParse,
    parse_rubric,
    upstream_jcq_parse,
)
from creval.judges.single import SingleAgentJudge
from creval.judges.usage import RoleUsage

__all__ = [
    "DOMAIN_CRITERIA",
    "TTCT_CRITERIA_EN",
    "TTCT_CRITERIA_JA",
    "ChatEvalJudge",
    "Criterion",
    "JudgeCriterion",
    "JudgeVerdict",
    "MultiAgentJudge",
    "PairwiseNoveltyJudge",
    "RoleUsage",
    "RubricParse",
    "SingleAgentJudge",
    "check_rubric",
    "criteria_for",
    "follows_criterion_order",
    "no_variance",
    "parse_rubric",
    "position_bias",
    "upstream_jcq_parse",
]
