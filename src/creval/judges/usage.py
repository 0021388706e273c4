"""Per-role token accounting for judges that call a model several times.

Every judge call goes through :func:`ask`, which sends one request through the judge's
``generate`` function and adds the completions' token usage to a :class:`UsageLedger` under
a *role* (``problem_analyst``, ``critic``, ``judge`` ...) and a *stage* (``init``,
``discussion``, ``confidence``, ``verdict`` ...). The per-role totals always sum to the
ledger's total.

>>> ledger = UsageLedger()
>>> ledger.add("critic", "turn", input_tokens=120, output_tokens=30)
>>> ledger.add("scientist", "turn", input_tokens=200, output_tokens=40)
>>> ledger.total()
RoleUsage(input_tokens=320, output_tokens=70, calls=2, reasoning_tokens=0)
>>> sorted(ledger.by_role())
['critic', 'scientist']
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from creval.models.base import Completion, GenerateRequest

__all__ = ["GenerateFn", "RoleUsage", "UsageLedger", "ask"]

#: How every judge reaches a model: one request in, ``request.n`` completions out.
GenerateFn = Callable[[GenerateRequest], Awaitable[list[Completion]]]


@dataclass(frozen=True)
class RoleUsage:
    """Tokens spent by one role (or in total): prompt tokens, generated tokens, model calls,
    and the part of the generated tokens a reasoning model spent thinking.

    >>> RoleUsage(10, 2, 1) + RoleUsage(5, 1, 1)
    RoleUsage(input_tokens=15, output_tokens=3, calls=2, reasoning_tokens=0)
    >>> RoleUsage(10, 2, 1).total_tokens
    12
    """

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    #: included in ``output_tokens``, not added to it
    reasoning_tokens: int = 0

    def __add__(self, other: RoleUsage) -> RoleUsage:
        return RoleUsage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.calls + other.calls,
            self.reasoning_tokens + other.reasoning_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_dict(self) -> dict[str, int]:
        """The counts; ``reasoning_tokens`` only when a reasoning model reported some."""
        out = {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
               "calls": self.calls}
        if self.reasoning_tokens:
            out["reasoning_tokens"] = self.reasoning_tokens
        return out


@dataclass
class UsageLedger:
    """Running token totals keyed by role and by stage (one ledger per evaluation)."""

    _roles: dict[str, RoleUsage] = field(default_factory=dict)
    _stages: dict[str, RoleUsage] = field(default_factory=dict)

    def add(self, role: str, stage: str, *, input_tokens: int, output_tokens: int,
            reasoning_tokens: int = 0) -> None:
        """Count one model call of ``role`` during ``stage``."""
        one = RoleUsage(input_tokens, output_tokens, 1, reasoning_tokens)
        self._roles[role] = self._roles.get(role, RoleUsage()) + one
        self._stages[stage] = self._stages.get(stage, RoleUsage()) + one

    def by_role(self) -> dict[str, RoleUsage]:
        """Role name -> tokens and calls, in the order roles first spoke."""
        return dict(self._roles)

    def by_stage(self) -> dict[str, RoleUsage]:
        """Stage name -> tokens and calls."""
        return dict(self._stages)

    def total(self) -> RoleUsage:
        """The sum over roles (equal to the sum over stages)."""
        out = RoleUsage()
        for usage in self._roles.values():
            out = out + usage
        return out


async def ask(
    generate: GenerateFn,
    request: GenerateRequest,
    *,
    role: str,
    stage: str,
    ledger: UsageLedger,
) -> str:
    """Send ``request`` (``n`` must be 1), count its tokens under ``role``, return the text."""
    if request.n != 1:
        raise ValueError(f"Judge requests ask for one completion, got n={request.n}.")
    completions = await generate(request)
    if len(completions) != 1:
        raise ValueError(
            f"generate() returned {len(completions)} completions for a request with n=1."
        )
    usage = completions[0].usage
    ledger.add(
        role, stage, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
        reasoning_tokens=usage.reasoning_tokens,
    )
    return completions[0].text  # the answer only: a reasoning model's thinking is not read
