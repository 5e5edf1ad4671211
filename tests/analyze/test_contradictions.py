"""Evidence that contradicts itself is doubt, whatever order its records come in.

A product's list naming one worker twice, once online and once offline, must
not read healthy one way round and blocked the other: the rung those records
decide is unknown, its finding cites both, and the fleet overview says the
same as the ladder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.analyze.engine import analyze
from bundler.cli import cli
from schemas import AnalysisReport, LayerStatus, TargetReport, Verdict
from schemas.evidence import ConnectionState, JobPhase, JobRequirements, LicenseInfo
from tests.support.evidence import (
    Fleet,
    clock,
    healthy_fleet,
    job,
    without_optional_rungs,
    worker,
    write_bundle_dir,
)


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


# -- every rung, not only the heartbeat ---------------------------------------------------------
#
# Each case below is a real bundle directory (write_bundle_dir) read by `bundler analyze`, once
# with the second record listed after the first and once before it: the verdict, the first
# failed layer and each rung's status must not depend on which record comes first.


def _analyzed(fleet: Fleet, root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    bundle = write_bundle_dir(fleet, root)
    result = CliRunner().invoke(cli, ["analyze", str(bundle), "--format", "json", *args])
    assert result.exit_code in (0, 1, 3), result.stderr
    return result.exit_code, json.loads(result.stdout)


def _listed_again(fleet: Fleet, name: str, first: bool, **update: Any) -> None:
    """``name`` listed a second time, with ``update`` applied: before its record or after it."""
    assert fleet.workers is not None
    records = fleet.workers.workers
    index = next(i for i, w in enumerate(records) if w.name == name)
    records.insert(index if first else len(records), records[index].model_copy(update=update))


def _rungs(report: dict[str, Any], worker: str) -> dict[str, tuple[str, list[str]]]:
    target = next(t for t in report["targets"] if t["worker"] == worker)
    return {
        layer["name"]: (layer["status"], [f["code"] for f in layer["findings"]])
        for layer in target["layers"]
    }


def _waiting_for_w2(fleet: Fleet) -> None:
    """A job only w2 (zone=b) is meant for, waiting to be placed."""
    assert fleet.jobs is not None
    fleet.jobs.jobs.append(
        job(
            "etl",
            id="etl-1",
            phase=JobPhase.UNASSIGNED,
            native_state="CREATED",
            assigned_worker=None,
            requirements=JobRequirements(labels={"zone": "b"}),
        )
    )


@pytest.mark.parametrize("first", [False, True])
def test_a_slot_count_two_records_disagree_on_does_not_decide_capacity(
    tmp_path: Path, first: bool
) -> None:
    """One record of w2 has every slot free, the other none: capacity is unknown either way,
    not blocked when the full record comes first and passing when the free one does."""
    fleet = without_optional_rungs(healthy_fleet())
    _waiting_for_w2(fleet)
    assert fleet.capacity is not None
    fleet.capacity.workers = [c for c in fleet.capacity.workers if c.worker != "w2"]
    _listed_again(fleet, "w2", first, in_flight=16)
    code, report = _analyzed(fleet, tmp_path / "b")
    assert (code, report["verdict"], report["first_failed_layer"]) == (3, "inconclusive", None)
    rungs = _rungs(report, "w2")
    assert rungs["heartbeat"][0] == "pass"  # both records say online, freshly: that is decided
    assert rungs["capacity"] == ("unknown", ["WORKER_RECORDS_CONFLICT"])
    target = next(t for t in report["targets"] if t["worker"] == "w2")
    capacity = next(layer for layer in target["layers"] if layer["name"] == "capacity")
    [finding] = capacity["findings"]
    assert {c["pointer"] for c in finding["evidence"]} == {
        "/workers/1/in_flight",
        "/workers/2/in_flight",
    }
    assert "this rung reads fail or pass depending on the record" in finding["message"]
    capacity_check = next(
        c
        for c in target["acceptance"]
        if c["check"] == "adequate measured capacity for the target job"
    )
    assert capacity_check["status"] == "unknown"


@pytest.mark.parametrize("first", [False, True])
def test_labels_two_records_disagree_on_do_not_decide_placement(
    tmp_path: Path, first: bool
) -> None:
    """w2 in zone=b by one record, zone=c by the other: whether etl is meant for it is unknown
    (before, the record that matched was believed whatever the other said)."""
    fleet = healthy_fleet()
    _waiting_for_w2(fleet)
    _listed_again(fleet, "w2", first, labels={"zone": "c"})
    _, report = _analyzed(fleet, tmp_path / "b", "--worker", "w2", "--job", "etl")
    rungs = _rungs(report, "w2")
    assert rungs["heartbeat"][0] == "pass"
    assert rungs["placement"] == ("unknown", ["WORKER_RECORDS_CONFLICT"])


@pytest.mark.parametrize("first", [False, True])
def test_a_kind_two_records_disagree_on_does_not_decide_authorization(
    tmp_path: Path, first: bool
) -> None:
    """Built-in (needs no lease) by one record, external (fails on the expired license) by the
    other: blocked when the external record came first, inconclusive the other way round."""
    fleet = healthy_fleet()
    assert fleet.authorization is not None
    assert fleet.server is not None
    fleet.authorization.workers = [a for a in fleet.authorization.workers if a.worker != "w2"]
    fleet.server.license = LicenseInfo(state="expired")
    _listed_again(fleet, "w2", first, kind="builtin")
    code, report = _analyzed(fleet, tmp_path / "b", "--worker", "w2")
    assert (code, report["verdict"]) == (3, "inconclusive")
    assert _rungs(report, "w2")["authorization"] == ("unknown", ["WORKER_RECORDS_CONFLICT"])


@pytest.mark.parametrize("first", [False, True])
def test_a_host_two_records_disagree_on_does_not_decide_the_clock(
    tmp_path: Path, first: bool
) -> None:
    """w2 on h03 (its clock 90 s off, beyond the lease tolerance) by one record, on h09 by the
    other: the clock check cannot pick the host by list order."""
    fleet = healthy_fleet()
    assert fleet.hosts is not None
    for host in fleet.hosts.hosts:
        if host.worker == "w2":
            host.worker, host.clock = None, clock(90)
    fleet.worker("w2").host_alias = "h03"
    _listed_again(fleet, "w2", first, host_alias="h09")
    code, report = _analyzed(fleet, tmp_path / "b", "--worker", "w2")
    assert (code, report["verdict"]) == (3, "inconclusive")
    rungs = _rungs(report, "w2")
    assert rungs["authorization"] == ("unknown", ["WORKER_RECORDS_CONFLICT"])
    assert "CLOCK_SKEW" not in rungs["heartbeat"][1]


@pytest.mark.parametrize("first", [False, True])
def test_what_every_record_says_decides_the_rung_whatever_else_they_disagree_on(
    tmp_path: Path, first: bool
) -> None:
    """Both records of w2 say offline (they differ only in its labels): its heartbeat fails on
    what both say, citing both, instead of reading unknown."""
    fleet = healthy_fleet()
    fleet.worker("w2").connection = ConnectionState.OFFLINE
    fleet.worker("w2").native_status = "offline"
    fleet.worker("w2").kind = None
    _listed_again(fleet, "w2", first, labels={"zone": "c"})
    fleet.jobs.jobs[0].requirements = JobRequirements(required_worker="w2")  # type: ignore[union-attr]
    _, report = _analyzed(fleet, tmp_path / "b", "--worker", "w2")
    heartbeat = next(
        layer
        for t in report["targets"]
        if t["worker"] == "w2"
        for layer in t["layers"]
        if layer["name"] == "heartbeat"
    )
    assert heartbeat["status"] == "fail"
    [offline] = [f for f in heartbeat["findings"] if f["code"] == "WORKER_OFFLINE"]
    assert {c["pointer"] for c in offline["evidence"]} >= {
        "/workers/1/connection",
        "/workers/2/connection",
    }


@pytest.mark.parametrize("first", [False, True])
def test_a_fleet_rung_does_not_count_a_worker_by_the_record_that_suits_it(
    tmp_path: Path, first: bool
) -> None:
    """A failed run with no worker is judged on the fleet: w1 is offline and w2 online by one
    record only, so "a worker is online" is unknown, not a pass on w2's better record."""
    fleet = without_optional_rungs(healthy_fleet())  # no deployment names a worker for it
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    _listed_again(fleet, "w2", first, connection=ConnectionState.OFFLINE)
    assert fleet.jobs is not None
    fleet.jobs.jobs = [
        job("ingest", phase=JobPhase.FAILED, native_state="FAILED", assigned_worker=None,
            requirements=None)
    ]  # fmt: skip
    _, report = _analyzed(fleet, tmp_path / "b", "--job", "ingest")
    [target] = report["targets"]
    assert target["worker"] is None
    heartbeat = next(layer for layer in target["layers"] if layer["name"] == "heartbeat")
    assert (heartbeat["status"], [f["code"] for f in heartbeat["findings"]]) == (
        "unknown",
        ["WORKER_RECORDS_CONFLICT"],
    )


@pytest.mark.parametrize("first", [False, True])
def test_the_fleet_row_of_a_disputed_worker_shows_only_what_its_records_agree_on(
    tmp_path: Path, first: bool
) -> None:
    fleet = healthy_fleet()
    fleet.worker("w2").labels = {"zone": "b", "rack": "r1"}
    _listed_again(fleet, "w2", first, labels={"zone": "c", "rack": "r1"}, group="g2")
    _, report = _analyzed(fleet, tmp_path / "b")
    row = next(r for r in report["fleet"]["workers"] if r["name"] == "w2")
    assert (row["labels"], row["group"]) == ({"rack": "r1"}, None)
