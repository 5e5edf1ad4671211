"""Fixtures for analyzer tests: a healthy canonical fleet, and a way to ask one rule."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from bundler.analyze.api import Rule, RuleContext, RuleResult, Target, Timeline, TimelineEvent
from schemas import LayerStatus, Recovery
from schemas.evidence import Job
from tests.support.evidence import Fleet, healthy_fleet


@pytest.fixture
def fleet() -> Fleet:
    return healthy_fleet()


def judge(
    rule: Rule,
    fleet: Fleet,
    worker: str | None = "w1",
    job: Job | str | None = None,
    events: list[TimelineEvent] | None = None,
    recovery_paths: Mapping[str, Recovery] | None = None,
    requirement_repairs: Mapping[str, str] | None = None,
) -> RuleResult | None:
    """Ask one rule about one target of ``fleet``; ``job`` may be a job name in the fleet;
    ``recovery_paths`` and ``requirement_repairs`` are a profile's own texts for generic
    paths and blocker repairs."""
    if isinstance(job, str):
        job = fleet.job(job)
    ctx = RuleContext(
        evidence=fleet.evidence(),
        target=Target(worker=worker, job=job, reason="test"),
        timeline=Timeline(list(events or [])),
        profile="test",
        recovery_paths=recovery_paths or {},
        requirement_repairs=requirement_repairs or {},
    )
    return rule(ctx)


def status(result: RuleResult | None) -> LayerStatus | None:
    return result.status if result is not None else None


def codes(result: RuleResult | None) -> list[str]:
    return [f.code for f in result.findings] if result is not None else []
