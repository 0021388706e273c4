"""``--plan`` for a judge panel (``--judge a,b,c``): what each judge's run will send.

A panel runs the benchmark once per judge, and the tested model is asked once (every other
judge's run takes its answers from the cache; ``docs/judges.md``), so the plan of a panel is
the plan with one judge in which the rows of the ``judge`` role are given once for each judge
the panel asks (a judge its spec puts in the tested model's family is not asked, as in the
run). Roles that fall back to the judge (LoTbench's ``e1``, ``e2``) take one judge and are not
repeated. The repeated rows count tokens with the planned judge's tokenizer (the row's
``tokenizer`` says so) and take the ``judge`` price.

>>> from creval.evaluation.run.cost import RoleCost
>>> row = RoleCost("ttct", "judge", "openai:a", 3, 6, 600, 300, "prompts", "tiktoken", 12.0, 0.5)
>>> target = RoleCost("ttct", "target", "local", 3, 3, 90, 90, "prompts", "llama", 30.0)
>>> [(c.role, c.model, c.requests, c.cost) for c in with_panel([target, row], ["openai:a", "openai:b"])]
[('target', 'local', 3, None), ('judge', 'openai:a', 6, 0.5), ('judge', 'openai:b', 6, 0.5)]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from creval.evaluation.run.cost import RoleCost

#: The role a panel's judges share.
JUDGE = "judge"


def with_panel(costs: Sequence[RoleCost], judges: Sequence[str]) -> list[RoleCost]:
    """``costs`` with every ``judge`` row (planned with one judge) replaced by one row per
    judge of the panel that is asked."""
    out: list[RoleCost] = []
    for c in costs:
        if c.role != JUDGE:
            out.append(c)
            continue
        out += [c if spec == c.model else
                dataclasses.replace(c, model=spec, tokenizer=f"{c.tokenizer} (counted as for {c.model})")
                for spec in judges]
    return out


def panel_judges(judge: str | None, model: str, *, allow_same_family: bool = False) -> list[str]:
    """The judges of ``--judge a,b,c`` a panel of ``model`` asks: those its specs put in the
    tested model's family are left out before any call, as the run does (one judge or none:
    empty).

    >>> panel_judges("openai:gpt-4o, openai:claude-3-opus, local", "openai:gpt-4o-mini")
    ['openai:claude-3-opus', 'local']
    >>> panel_judges("openai:a", "local")
    []
    """
    from creval.evaluation.panel.conditions import is_panel
    from creval.evaluation.run.families import same_by_spec

    if not is_panel(judge):
        return []
    judges = [j.strip() for j in str(judge).split(",")]
    return [j for j in judges if allow_same_family or same_by_spec(model, j) is None]


__all__ = ["panel_judges", "with_panel"]
