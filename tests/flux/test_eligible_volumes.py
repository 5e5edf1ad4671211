"""A waiting execution whose every eligible worker has a full state volume says so.

Each worker's own ladder warned of its full volume, but the execution's ladder judged slots
alone: "unassigned although w1, w2 could take it and has free slots". They cannot run it:
neither can write its state. Its capacity rung now fails on that, citing each worker's ``df``
line; one eligible worker with room (or read twice, once with room) means no such finding.
Eligible workers that cannot take work now (paused) and whose volumes are full: a warning
beside placement's failure.
"""

from __future__ import annotations

import pytest

from bundler.analyze.api import EvidenceSet
from bundler.analyze.engine import analyze
from bundler.products.flux import PROFILE as FLUX
from schemas import AnalysisReport, Finding, Layer, LayerStatus, TargetReport
from schemas.evidence import AdminState, StateVolume, WorkerStatus
from tests.support.flux_evidence import (
    MIB,
    FluxCase,
    LocalStateEvidence,
    online,
    state_volume,
    waiting,
)

CODE = "FLUX_ELIGIBLE_VOLUMES_FULL"


def _report(
    workers: list[WorkerStatus], volumes: list[StateVolume], **asked: str
) -> AnalysisReport:
    """An execution waiting for zone a (w1, w2 meet it; w3, zone b, does not)."""
    case = FluxCase(
        workers=[*workers, online("w3", labels={"zone": "b"})],
        jobs=[waiting(labels={"zone": "a"})],
        documents=[LocalStateEvidence(volumes=[*volumes, state_volume("w3", 0)])],
    )
    return analyze(EvidenceSet(case.source()), profile=FLUX, **asked)


def _job_target(report: AnalysisReport) -> TargetReport:
    [target] = [t for t in report.targets if t.job is not None]
    return target


def _rung(target: TargetReport, layer: Layer) -> tuple[LayerStatus, list[Finding]]:
    found = next(lr for lr in target.layers if lr.name is layer)
    return found.status, found.findings


def _zone_a(**state: object) -> list[WorkerStatus]:
    return [online(name, labels={"zone": "a"}, **state) for name in ("w1", "w2")]


def test_every_eligible_worker_full_fails_capacity_citing_each_df_line() -> None:
    report = _report(_zone_a(), [state_volume("w1", 0), state_volume("w2", 0)])
    target = _job_target(report)
    assert target.first_failed_layer is Layer.CAPACITY
    status, found = _rung(target, Layer.CAPACITY)
    assert status is LayerStatus.FAIL
    [finding] = [f for f in found if f.code == CODE]
    assert finding.severity == "fail"
    assert "every worker that may take it cannot write its state" in finding.message
    assert "w1 at /srv/flux/w1: 0 B of 4.0 MiB free" in finding.message
    assert "w3" not in finding.message  # full too, but not eligible (zone b)
    assert finding.details["workers"] == ["w1", "w2"]
    df_lines = {c.member: c.lines for c in finding.evidence if c.member.startswith("hosts/")}
    assert set(df_lines) == {"hosts/h-w1/state-volume.txt", "hosts/h-w2/state-volume.txt"}
    assert all(lines is not None and lines.start == 2 for lines in df_lines.values())
    # "free slots, dispatch pending" is not why it waits: one cause, one finding
    assert "FLUX_DISPATCH_PENDING" not in {f.code for f in found}
    assert finding.recovery is not None
    assert "start a matching worker on a volume with room" in finding.recovery.summary


@pytest.mark.parametrize(
    "w2_volumes",
    [
        [state_volume("w2", 2 * MIB)],  # room
        [state_volume("w2", 0), state_volume("w2", 2 * MIB).model_copy(update={"host_alias": "b"})],
        [],  # not read: it may have room
    ],
    ids=["room", "read-twice-once-with-room", "unread"],
)
def test_one_eligible_worker_that_may_have_room_means_no_such_finding(
    w2_volumes: list[StateVolume],
) -> None:
    report = _report(_zone_a(), [state_volume("w1", 0), *w2_volumes])
    target = _job_target(report)
    found = [f for layer in target.layers for f in layer.findings]
    assert CODE not in {f.code for f in found}
    assert "FLUX_DISPATCH_PENDING" in {f.code for f in found}


def test_paused_eligible_workers_on_full_volumes_warn_beside_placement() -> None:
    report = _report(
        _zone_a(admin=AdminState.PAUSED), [state_volume("w1", 0), state_volume("w2", 0)]
    )
    target = _job_target(report)
    assert target.first_failed_layer is Layer.PLACEMENT
    status, found = _rung(target, Layer.PLACEMENT)
    assert status is LayerStatus.FAIL
    assert [f.code for f in found if f.severity == "fail"] == ["FLUX_ELIGIBLE_WORKERS_UNAVAILABLE"]
    [finding] = [f for f in found if f.code == CODE]
    assert finding.severity == "warn"
    assert "cannot take work now" in finding.message
    assert {c.member for c in finding.evidence if c.member.startswith("hosts/")} == {
        "hosts/h-w1/state-volume.txt",
        "hosts/h-w2/state-volume.txt",
    }


NEARLY_FULL = "FLUX_WORKER_DISK_NEARLY_FULL"


@pytest.mark.parametrize(
    ("admin", "stopped_at"),
    [(AdminState.PAUSED, Layer.PLACEMENT), (AdminState.ACTIVE, Layer.CAPACITY)],
    ids=["placement", "capacity"],
)
def test_the_candidates_full_volume_is_said_once_on_the_rung_where_the_ladder_stops(
    admin: AdminState, stopped_at: Layer
) -> None:
    """The execution's candidate (w1) is one of the workers the finding names, its df line
    cited there: its own host warning (context on placement, a warning of the capacity rung)
    said it a second time beside it. The warning is not lost: the finding stands for it, so
    no fleet line says that no ladder shows w1's volume."""
    report = _report(_zone_a(admin=admin), [state_volume("w1", 0), state_volume("w2", 0)])
    target = _job_target(report)
    assert (target.worker, target.first_failed_layer) == ("w1", stopped_at)
    _, found = _rung(target, stopped_at)
    assert [f.code for f in found if f.code in (CODE, NEARLY_FULL)] == [CODE]
    shown = [c.member for f in found for c in f.evidence]
    assert shown.count("hosts/h-w1/state-volume.txt") == 1
    assert "HOST_WARNINGS" not in {f.code for f in report.fleet_findings}


def test_a_full_volume_the_finding_does_not_name_is_still_shown_as_context() -> None:
    """Asked for w3 (zone b, not eligible) and the execution: w3's full volume is no part of
    the eligible workers' finding, so placement still shows it, its repair first."""
    report = _report(
        _zone_a(admin=AdminState.PAUSED),
        [state_volume("w1", 0), state_volume("w2", 0)],
        worker="w3",
        job="default/job",
    )
    target = _job_target(report)
    assert (target.worker, target.first_failed_layer) == ("w3", Layer.PLACEMENT)
    _, found = _rung(target, Layer.PLACEMENT)
    assert CODE in {f.code for f in found}
    [context] = [f for f in found if f.code == NEARLY_FULL]
    assert context.details["worker"] == "w3"
    assert context.details["judged_on"] == "capacity"
