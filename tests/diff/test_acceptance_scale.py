"""The "newer than BEFORE" checks look each recovery target's runs and receipts up, not scan.

A recovered fleet's AFTER lists a canary run per job; diff judges up to a hundred recovery
targets, and a scan of every run and receipt per target (three per target) was the fleet's
size times the targets'. Counted, not timed: each list is walked once, however many targets.
The look-ups must find exactly the runs and receipts the scans found: checked against the
scans' own conditions on lists with every kind of gap (no id, no worker, no job).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest

from bundler.diff.acceptance import evaluate
from schemas import Layer, LayerResult, LayerStatus, TargetReport, Verdict
from schemas.evidence import CanaryRun, OutcomeEvidence, Receipt
from tests.support.evidence import T0, Walked


def _target(worker: str | None, job: str | None, verdict: Verdict) -> TargetReport:
    status = LayerStatus.FAIL if verdict is Verdict.BLOCKED else LayerStatus.PASS
    return TargetReport(
        worker=worker,
        job=job,
        verdict=verdict,
        layers=[LayerResult(name=Layer.HEARTBEAT, status=status)],
    )


def _walks(targets: int, runs: int = 300) -> tuple[int, int]:
    outcome = OutcomeEvidence(
        canaries=[
            CanaryRun(
                canary_id=f"c{i}",
                job=f"j{i}",
                worker=f"w{i}",
                phase="successful",
                finished_at=T0 - timedelta(seconds=i),
                receipt_required=True,
            )
            for i in range(runs)
        ],
        receipts=[
            Receipt(canary_id=f"c{i}", sink="s3", observed_at=T0 - timedelta(seconds=i))
            for i in range(runs)
        ],
    )
    canaries = outcome.canaries = Walked(outcome.canaries)
    receipts = outcome.receipts = Walked(outcome.receipts)
    pairs = [
        (
            _target(f"w{i}", f"j{i}", Verdict.BLOCKED),
            _target(f"w{i}", f"j{i}", Verdict.HEALTHY),
            "worker and job",
        )
        for i in range(targets)
    ]
    checks = {c.check: c.status for c in evaluate(pairs, outcome, T0 - timedelta(hours=1), T0)}
    assert checks["successful canary newer than BEFORE"] == "pass"
    assert checks["external receipt newer than BEFORE (where the job has an external effect)"] == (
        "pass"
    )
    return canaries.walks, receipts.walks


@pytest.mark.parametrize(("few", "many"), [(5, 60)])
def test_runs_and_receipts_are_walked_once_however_many_targets(few: int, many: int) -> None:
    assert _walks(few) == _walks(many) == (1, 1)


def _scanned_runs(after: TargetReport, outcome: OutcomeEvidence) -> list[CanaryRun]:
    """The runs a target's checks read, by the scan's own condition."""
    return [
        run
        for run in outcome.canaries
        if (after.job is None or run.job == after.job)
        and (after.worker is None or run.worker in (None, after.worker))
    ]


def _scanned_receipts(
    ids: set[str | None], jobs: set[str], outcome: OutcomeEvidence
) -> list[Receipt]:
    return [
        rc
        for rc in outcome.receipts
        if rc.canary_id in ids or (rc.canary_id is None and rc.job in jobs)
    ]


def _ids(items: list[Any]) -> list[int]:
    return sorted(id(item) for item in items)


@pytest.mark.parametrize("seed", range(20))
def test_the_look_ups_find_what_the_scans_found(seed: int) -> None:
    from bundler.diff.acceptance import _Runs

    rng = random.Random(seed)
    maybe = [None, "a", "b", "c"]
    outcome = OutcomeEvidence(
        canaries=[
            CanaryRun(
                canary_id=rng.choice(maybe),
                job=rng.choice(["a", "b", "c"]),
                worker=rng.choice(maybe),
                receipt_required=rng.random() < 0.5,
            )
            for _ in range(rng.randrange(12))
        ],
        receipts=[
            Receipt(canary_id=rng.choice(maybe), job=rng.choice(maybe), sink="s3")
            for _ in range(rng.randrange(12))
        ],
    )
    runs = _Runs(outcome)
    for worker in maybe:
        for job in maybe:
            after = _target(worker, job, Verdict.HEALTHY)
            found = runs.matching(after)
            assert _ids(found) == _ids(_scanned_runs(after, outcome))
            ids = {r.canary_id for r in found if r.receipt_required}
            jobs = {r.job for r in found if r.receipt_required}
            assert _ids(runs.receipts(ids, jobs)) == _ids(_scanned_receipts(ids, jobs, outcome))
