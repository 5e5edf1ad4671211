"""Evidence that contradicts itself is doubt, whatever order its records come in.

A product's list naming one worker twice, once online and once offline, must
not read healthy one way round and blocked the other: the rung those records
decide is unknown, its finding cites both, and the fleet overview says the
same as the ladder.
"""

from __future__ import annotations

import pytest

from bundler.analyze.engine import analyze
from schemas import AnalysisReport, LayerStatus, TargetReport, Verdict
from schemas.evidence import ConnectionState
from tests.support.evidence import Fleet, worker


def _listed_twice(fleet: Fleet, name: str, offline_first: bool) -> None:
    """``name`` listed again, offline: before its online record or after it."""
    assert fleet.workers is not None
    records = fleet.workers.workers
    index = next(i for i, w in enumerate(records) if w.name == name)
    gone = records[index].model_copy(
        update={"connection": ConnectionState.OFFLINE, "native_status": "offline"}
    )
    records.insert(index if offline_first else len(records), gone)


def _target(report: AnalysisReport, name: str) -> TargetReport:
    return next(t for t in report.targets if t.worker == name)


@pytest.mark.parametrize("offline_first", [False, True])
def test_a_worker_listed_online_and_offline_is_inconclusive_in_either_order(
    fleet: Fleet, offline_first: bool
) -> None:
    _listed_twice(fleet, "w2", offline_first)
    report = analyze(fleet.evidence())
    assert report.verdict is Verdict.INCONCLUSIVE
    heartbeat = _target(report, "w2").layers[1]
    assert heartbeat.status is LayerStatus.UNKNOWN
    [finding] = heartbeat.findings
    assert finding.code == "WORKER_RECORDS_CONFLICT"
    assert "online / offline" in finding.message or "offline / online" in finding.message
    cited = {c.pointer for c in finding.evidence}
    assert {"/workers/1/native_status", "/workers/2/native_status"} <= cited
    row = next(r for r in report.fleet.workers if r.name == "w2")
    assert row.status is ConnectionState.UNKNOWN  # as its ladder says: not either record's word
    assert row.verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize("offline_first", [False, True])
def test_a_busy_worker_listed_twice_is_doubted_on_its_job_ladder_too(
    fleet: Fleet, offline_first: bool
) -> None:
    _listed_twice(fleet, "w1", offline_first)
    report = analyze(fleet.evidence())
    assert report.verdict is Verdict.INCONCLUSIVE
    chosen = [(t.worker, t.job) for t in report.targets]
    assert chosen == [("w1", "ingest")]  # the same target whichever record comes first
    assert [f.code for f in report.targets[0].layers[1].findings] == ["WORKER_RECORDS_CONFLICT"]


def test_a_worker_listed_twice_alike_is_one_worker(fleet: Fleet) -> None:
    assert fleet.workers is not None
    fleet.workers.workers.append(worker("w2", labels={"zone": "b"}))
    report = analyze(fleet.evidence())
    assert report.verdict is Verdict.HEALTHY
    assert [r.status for r in report.fleet.workers if r.name == "w2"] == [ConnectionState.ONLINE]
