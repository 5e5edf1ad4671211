"""A fleet's size must not multiply diff's work: a target walked by name is not a new analysis.

Target selection looks where trouble is, so AFTER's analysis (a recovered fleet: every
worker healthy, up to 50 ladders) and BEFORE's (the few in trouble) choose different
targets, and each one only the other side chose is walked again on that side by name.
Each walk used to analyze the whole fleet again (the overview and the fleet findings over
every worker, the logs parsed again): two bundles of 100,000 workers did not compare in
ten minutes. Timed tests are not how this project measures speed (``bench/``), so this
counts how often each per-worker list and the job list are walked while two analyzed
fleets are compared: a constant number of times, however many targets are walked by name.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from bundler.analyze.engine import run_analysis
from bundler.diff import Side, compare
from schemas import EncryptionInfo, Manifest, ToolInfo
from schemas.evidence import (
    AuthorizationEvidence,
    CapacityEvidence,
    ConnectionState,
    EvidenceDoc,
    JobsEvidence,
    WorkersEvidence,
)
from tests.support.evidence import T0, Fleet, Walked, healthy_fleet, with_more_workers

COUNTED: tuple[tuple[type[EvidenceDoc], str], ...] = (
    (WorkersEvidence, "workers"),
    (CapacityEvidence, "workers"),
    (AuthorizationEvidence, "workers"),
    (JobsEvidence, "jobs"),
)
"""The lists a walk by name has no reason to read whole: it chooses its target by looking the
name up, and a ladder reads its own worker's records. (A rung's rule may still look through a
per-job list for its job: that is one ladder's cost, as in ``bundler analyze``.)"""


def _fleet(size: int, *, w1_offline: bool) -> Fleet:
    """The two-worker healthy fleet and ``size`` more healthy workers; w1 offline in BEFORE."""
    fleet = with_more_workers(healthy_fleet(), [f"x{i:04d}" for i in range(size)])
    assert fleet.outcome is not None
    fleet.outcome.receipts[0].observed_at = T0 - timedelta(seconds=50)
    if w1_offline:
        w1 = fleet.worker("w1")
        w1.connection = ConnectionState.OFFLINE
        w1.native_status = "offline"
    return fleet


def _side(fleet: Fleet, label: str, collected: datetime) -> Side:
    fleet.manifest = Manifest(
        tool=ToolInfo(version="0.1.0"),
        created_at=collected,
        bundle_id=label,
        encryption=EncryptionInfo(mode="password"),
    )
    evidence = fleet.evidence()
    done = run_analysis(evidence)
    return Side.of(label, fleet.manifest, evidence, done.report)


def _walks_while_comparing(size: int) -> tuple[dict[str, int], int]:
    """Walks of each counted list while BEFORE and AFTER are compared (both already analyzed),
    and how many targets were walked by name."""
    before = _side(_fleet(size, w1_offline=True), "BEFORE", T0 - timedelta(minutes=10))
    after = _side(_fleet(size, w1_offline=False), "AFTER", T0)
    walked: dict[str, Walked] = {}
    for label, side in (("before", before), ("after", after)):
        assert side.evidence is not None
        for cls, name in COUNTED:
            doc = side.evidence.get(cls)
            assert doc is not None
            counted = Walked(getattr(doc, name))
            setattr(doc, name, counted)
            walked[f"{label} {cls.__name__}.{name}"] = counted
    report = compare(before, after)
    by_name = [t for t in report.targets if t.matched_by.startswith("walked")]
    assert report.verdict == "recovered", report.verdict
    return {name: listed.walks for name, listed in walked.items()}, len(by_name)


@pytest.mark.parametrize(("small", "large"), [(10, 40)])
def test_lists_are_walked_a_constant_number_of_times_however_many_targets_are_walked(
    small: int, large: int
) -> None:
    few, walked_few = _walks_while_comparing(small)
    many, walked_many = _walks_while_comparing(large)
    assert walked_many > walked_few > 0  # more targets walked by name on the larger fleet
    assert many == few, (few, many)
    assert max(many.values()) <= 3, many


def test_a_workers_facts_are_merged_value_by_value_only_when_it_is_listed_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker's record and its capacity report share no fact: taken as they are. Only a
    worker listed twice has its facts merged (each record's word where they disagree)."""
    import bundler.diff.facts as facts

    merged: list[object] = []

    def one(values: list[Any]) -> Any:
        merged.append(values)
        return real(values)

    real = facts._one
    monkeypatch.setattr(facts, "_one", one)
    before = _fleet(200, w1_offline=True)
    assert before.workers is not None
    twice = before.worker("x0000").model_copy(update={"native_status": "gone"})
    before.workers.workers.append(twice)
    sides = [
        _side(fleet, label, at)
        for fleet, label, at in (
            (before, "BEFORE", T0 - timedelta(minutes=10)),
            (_fleet(200, w1_offline=False), "AFTER", T0),
        )
    ]
    changes = {(c.subject, c.field): (c.before, c.after) for c in facts.worker_changes(*sides)}
    assert changes[("x0000", "status")] == ("gone / online", "online")
    assert changes[("w1", "connection")] == ("offline", "online")
    assert len(merged) == 12  # x0000's 9 worker facts and 3 capacity facts in BEFORE, only
