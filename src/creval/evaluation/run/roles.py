"""Which model plays each role of a run: the tested model (``target``), the judge, and the
roles a benchmark declares of its own in ``Benchmark.extra_roles`` (LoTbench's evaluators
``e1`` and ``e2``, Oogiri's ``rewriter``).

A declared role takes the model named for it (``--e1 SPEC``, ``roles={"e1": SPEC}``, or the
preset's); otherwise the judge model (``--judge``); otherwise the tested model itself.
``--ROLE-base-url URL`` points a role at another endpoint, as ``--judge-base-url`` does for
the judge; every other model option (API key, timeout, concurrency) is the run's, except
``reasoning_effort`` (``--reasoning-effort``), which is the tested model's alone: a judge
or evaluator gets its endpoint's default unless the tested model plays the role itself.
Roles with the same spec and options share one model object: it is built once, an
in-process model is loaded once, and its requests share one concurrency limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from creval.benchmarks.base import Benchmark
from creval.errors import CrevalError
from creval.models import Model, ModelOptions, get_model


@dataclass(frozen=True)
class Choice:
    """What plays one role: a spec, its options and the flag that chose it."""

    spec: str
    options: ModelOptions
    chosen_by: str


def choose(
    benchmark: Benchmark[Any], *, model: str, model_options: ModelOptions, judge: str | None,
    judge_options: ModelOptions | None, roles: Mapping[str, str],
    role_options: Mapping[str, ModelOptions],
) -> dict[str, Choice]:
    """The choice for each role the units of ``benchmark`` call."""
    if model_options.reasoning_effort is not None and not model.startswith("openai:"):
        raise CrevalError(f"--reasoning-effort is sent to openai: endpoints only, not to {model}. "
                          "Leave it out, or test an openai:NAME model (--base-url for a server).")
    target = Choice(model, model_options, "--model")
    model_options = _without_effort(model_options)
    role_options = {r: _without_effort(o) for r, o in role_options.items()}
    fallback = target if judge is None and judge_options is None else Choice(
        judge or model, _without_effort(judge_options or model_options), "--judge")
    out = {"target": target}
    if "judge" in benchmark.roles:
        out["judge"] = fallback
    for role in benchmark.extra_roles:
        if role in roles:
            out[role] = Choice(roles[role], role_options.get(role, model_options), f"--{role}")
        elif role in role_options:  # another endpoint of the judge's (or target's) spec
            out[role] = Choice(fallback.spec, role_options[role], f"--{role}-base-url")
        else:
            out[role] = fallback
    return out


def _without_effort(options: ModelOptions) -> ModelOptions:
    """``options`` for a role other than the tested model: no reasoning effort of its own."""
    if options.reasoning_effort is None:
        return options
    return options.model_copy(update={"reasoning_effort": None})


def build(choices: Mapping[str, Choice]) -> dict[str, Model]:
    """One model per distinct (spec, options), shared by the roles that chose it."""
    built: dict[tuple[str, str], Model] = {}
    out = {}
    for role, choice in choices.items():
        key = (choice.spec, choice.options.model_dump_json())
        if key not in built:
            built[key] = get_model(choice.spec, choice.options)
        out[role] = built[key]
    return out


def describe(model: Model) -> dict[str, Any]:
    """A model as the manifest records it."""
    return {"spec": model.spec, "identity": model.identity(),
            "capabilities": model.capabilities.model_dump()}


def describe_roles(
    benchmark: Benchmark[Any], models: Mapping[str, Model], choices: Mapping[str, Choice]
) -> dict[str, Any]:
    """The manifest's ``roles``: each declared role's model and what chose it."""
    return {role: {**describe(models[role]), "does": what, "chosen_by": choices[role].chosen_by}
            for role, what in benchmark.extra_roles.items() if role in models}


def check_roles(old: dict[str, Any], new: dict[str, Any], out: Any) -> None:
    """Refuse to resume ``out`` when a role's model changed (as for the judge)."""
    old_roles, new_roles = old.get("roles") or {}, new.get("roles") or {}
    for role in sorted(set(old_roles) | set(new_roles)):
        before, now = old_roles.get(role), new_roles.get(role)
        if before is None or now is None:
            raise CrevalError(
                f"{out} was run {'without' if before is None else 'with'} a model role "
                f"{role!r}, which this run {'has' if before is None else 'lacks'} (a run of an "
                "older creval?). Use another --out for a new run.")
        if before.get("identity") != now.get("identity"):
            raise CrevalError(
                f"{out} was run with a different {role} model ({before.get('identity')}), not "
                f"{now.get('identity')}. Pass the same --{role} (or --judge) as that run, or use "
                "another --out for a new run.")


def self_roles(models: Mapping[str, Model]) -> list[str]:
    """The roles other than ``target`` played by the tested model itself."""
    target = models["target"]
    return [role for role, m in models.items() if role != "target" and m is target]


def check_role_names(
    benchmarks: list[Benchmark[Any]], roles: Mapping[str, str], role_urls: Mapping[str, str]
) -> None:
    """Every role named is a declared role of at least one of ``benchmarks``."""
    declared = {r for b in benchmarks for r in b.extra_roles}
    for name, value in [*roles.items(), *role_urls.items()]:
        if name not in declared:
            have = ", ".join(f"{b.name}: {', '.join(b.extra_roles) or 'none'}" for b in benchmarks)
            raise CrevalError(f"{name!r} is not a model role of the chosen benchmark(s) "
                              f"(roles of {have}). See `creval list --verbose`.")
        if not str(value).strip():
            raise CrevalError(f"The {name} model needs a spec or URL, got an empty one.")


def split_role_values(
    benchmarks: list[Benchmark[Any]], values: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """Command-line option values -> (benchmark options, role specs, role base URLs):
    ``--e1 SPEC`` and ``--e1-base-url URL`` of a benchmark that declares ``e1``."""
    declared = {r for b in benchmarks for r in b.extra_roles}
    rest, roles, urls = {}, {}, {}
    for name, value in values.items():
        if name in declared:
            roles[name] = str(value)
        elif name.endswith("_base_url") and name.removesuffix("_base_url") in declared:
            urls[name.removesuffix("_base_url")] = str(value)
        else:
            rest[name] = value
    return rest, roles, urls


def parse_role_flags(flags: list[str]) -> dict[str, str]:
    """``--role NAME=SPEC`` values -> ``{NAME: SPEC}``.

    >>> parse_role_flags(["e1=openai:gpt-4o-mini", "rewriter=local"])
    {'e1': 'openai:gpt-4o-mini', 'rewriter': 'local'}
    """
    out = {}
    for flag in flags:
        name, eq, spec = flag.partition("=")
        if not eq or not name.strip() or not spec.strip():
            raise CrevalError(f"--role {flag!r}: write --role NAME=SPEC, e.g. --role e1=openai:gpt-4o-mini.")
        out[name.strip().replace("-", "_")] = spec.strip()
    return out
