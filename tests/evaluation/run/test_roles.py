"""``creval.evaluation.run.roles``: which model plays each role, one model object per distinct choice, and
the resume check of the manifest's roles."""

from __future__ import annotations

from typing import Any

import pytest

from creval.benchmarks.base import get_benchmark, registry
from creval.errors import CrevalError
from creval.evaluation.run.roles import build, check_roles, choose, self_roles
from creval.models import ModelOptions

OPTIONS = ModelOptions(api_key="x", base_url="http://127.0.0.1:9/v1")


def models_for(bench: str, **kw: Any) -> dict[str, Any]:
    settings: dict[str, Any] = {"model": "openai:player", "model_options": OPTIONS, "judge": None,
                                "judge_options": None, "roles": {}, "role_options": {}}
    return build(choose(get_benchmark(bench), **{**settings, **kw}))


def test_a_spec_shared_by_roles_is_built_once() -> None:
    models = models_for("lotbench", roles={"e1": "openai:gpt", "e2": "openai:gpt"})
    assert set(models) == {"target", "e1", "e2"}
    assert models["e1"] is models["e2"] and models["e1"] is not models["target"]
    assert self_roles(models) == []
    same_as_target = models_for("lotbench", roles={"e1": "openai:player"})
    assert same_as_target["e1"] is same_as_target["target"] is same_as_target["e2"]
    assert self_roles(same_as_target) == ["e1", "e2"]


def test_another_endpoint_is_another_model() -> None:
    elsewhere = OPTIONS.model_copy(update={"base_url": "http://127.0.0.1:8/v1"})
    models = models_for("lotbench", roles={"e1": "openai:gpt", "e2": "openai:gpt"},
                        role_options={"e2": elsewhere})
    assert models["e1"] is not models["e2"]
    assert models["e2"].identity()["base_url"].startswith("http://127.0.0.1:8")
    url_only = models_for("oogiri", judge="openai:j", role_options={"rewriter": elsewhere})
    assert url_only["rewriter"].spec == "openai:j"  # the judge's spec at the role's endpoint


def test_the_judge_role_and_extra_roles_share_the_judge_model() -> None:
    models = models_for("ttct", judge="openai:j")
    assert set(models) == {"target", "judge"} and models["judge"].spec == "openai:j"
    fallback = models_for("lotbench", judge="openai:j")
    assert fallback["e1"] is fallback["e2"] and fallback["e1"].spec == "openai:j"


def test_resume_refuses_a_changed_missing_or_new_role() -> None:
    old = {"roles": {"e1": {"identity": {"model": "a"}}, "e2": {"identity": {"model": "b"}}}}
    check_roles(old, old, "run")
    changed = {"roles": {**old["roles"], "e2": {"identity": {"model": "c"}}}}
    with pytest.raises(CrevalError, match="different e2 model"):
        check_roles(old, changed, "run")
    with pytest.raises(CrevalError, match="without a model role 'e1'"):
        check_roles({}, {"roles": {"e1": {"identity": {}}}}, "run")


def test_role_names_do_not_clash_with_options_or_run_flags() -> None:
    run_flags = {"model", "judge", "judge_base_url", "role", "out", "limit", "base_url",
                 "api_key", "preset"}
    for name, cls in registry().items():
        for role in cls.extra_roles:
            taken = (set(cls.Options.model_fields) | run_flags) & {role, f"{role}_base_url"}
            assert not taken, f"{name}: role {role} clashes with {taken}"
            assert role.isidentifier() and role not in ("target", "judge")
