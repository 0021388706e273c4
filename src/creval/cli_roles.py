"""The model roles of ``creval run``: ``--e1 SPEC``, ``--e1-base-url URL`` and
``--role NAME=SPEC`` for the roles the named benchmarks declare (see :mod:`creval.roles`)."""

from __future__ import annotations

from typing import Any

from creval.errors import CrevalError


def role_values(
    names: list[str], values: dict[str, Any], role_flags: list[str]
) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """Split the options after the benchmark names into (benchmark options, role specs,
    role base URLs); ``--role NAME=SPEC`` joins the specs. A role given twice is an error."""
    from creval.benchmarks.base import get_benchmark
    from creval.roles import parse_role_flags, split_role_values

    known = []
    for name in names:
        try:
            known.append(get_benchmark(name))
        except CrevalError:
            continue  # plan_runs names the unknown benchmark
    rest, roles, urls = split_role_values(known, values)
    for role, spec in parse_role_flags(role_flags).items():
        if role in roles and roles[role] != spec:
            raise CrevalError(f"The {role} model is given twice (--{role} {roles[role]} and "
                              f"--role {role}={spec}); give it once.")
        roles[role] = spec
    return rest, roles, urls


def roles_table(cls: Any) -> Any:
    """A benchmark's own model roles, as ``creval list --verbose`` and ``run --help`` show them."""
    from rich.table import Table

    table = Table("role option", "default", "what the model does", box=None, pad_edge=False)
    for role, what in cls.extra_roles.items():
        table.add_row(f"--{role} SPEC", "--judge, else --model", what)
        table.add_row(f"--{role}-base-url URL", "its fallback's endpoint",
                      f"endpoint of the {role} model (with --{role}: --base-url by default)")
    return table
