"""Every registered profile's plan is read-only, statically, before anything can run it."""

from __future__ import annotations

import pytest

from bundler.collect.plan import CommandStep, HttpStep
from bundler.collect.readonly import path_violation, plan_violations
from bundler.products import PROFILES, get_profile
from tests.collect.testprofile import SampleProfile

# GETs that change state in the product although they look safe (reference: flux-observed.md).
KNOWN_MUTATING_GETS = {
    "flux": ("/workers/w1/connect", "/workflows/default/wf/cancel/e1"),
}


def test_plans_can_only_get() -> None:
    assert "method" not in HttpStep.model_fields


def test_both_product_profiles_are_registered() -> None:
    assert set(PROFILES) >= {"flux", "lyftdata"}


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_registered_profile_plan_is_read_only(name: str) -> None:
    profile = get_profile(name)
    plan = profile.plan()
    assert plan_violations(plan, profile) == []
    for path in KNOWN_MUTATING_GETS.get(name, ()):
        assert path_violation(path, profile.mutating_routes), f"{path} must be a mutating route"
    for step in plan.steps:
        if isinstance(step, HttpStep | CommandStep) and step.schema_name:
            declared = step.schema_name in profile.raw_models
            item = step.schema_name.removesuffix("[]") in profile.raw_models
            assert declared or item, f"{step.id}: no raw model {step.schema_name}"


def test_sample_profile_plan_is_read_only() -> None:
    profile = SampleProfile()
    assert plan_violations(profile.plan(), profile) == []
