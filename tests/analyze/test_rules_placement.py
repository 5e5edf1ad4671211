"""Rung 3 rules: product-reported placement, assignment, and derived matching."""

from __future__ import annotations

from bundler.analyze.rules import placement as rules
from bundler.analyze.wording import CITED
from schemas import LayerStatus
from schemas.evidence import (
    Job,
    JobPhase,
    JobPlacement,
    JobRequirements,
    PlacementEvidence,
    WorkerPlacementVerdict,
)
from tests.support.evidence import Fleet, job, worker

from .conftest import codes, judge, status


def _waiting(fleet: Fleet, **req: object) -> Job:
    waiting = job(
        "sleeper",
        id="e9",
        phase=JobPhase.UNASSIGNED,
        native_state="CREATED",
        assigned_worker=None,
        requirements=JobRequirements(**req),
    )  # type: ignore[arg-type]
    assert fleet.jobs is not None
    fleet.jobs.jobs.append(waiting)
    return waiting


def test_no_job_is_not_applicable(fleet: Fleet) -> None:
    assert status(judge(rules.job_placement, fleet)) is LayerStatus.NOT_APPLICABLE


def test_assigned_job_passes_on_its_worker(fleet: Fleet) -> None:
    result = judge(rules.job_placement, fleet, job="ingest")
    assert codes(result) == ["JOB_ASSIGNED"]


def test_assigned_elsewhere_is_not_intended_for_this_worker(fleet: Fleet) -> None:
    result = judge(rules.job_placement, fleet, worker="w2", job="ingest")
    assert codes(result) == ["NOT_INTENDED_FOR_WORKER"]
    assert result is not None
    assert "assigned to w1, not to w2" in result.findings[0].message


def test_no_matching_worker_names_unmatched_labels_per_worker(fleet: Fleet) -> None:
    waiting = _waiting(fleet, labels={"zone": "mars"})
    result = judge(rules.job_placement, fleet, worker=None, job=waiting)
    assert codes(result) == ["NO_MATCHING_WORKER"]
    assert result is not None
    finding = result.findings[0]
    assert finding.details["per_worker"] == {
        "w1": ["zone=mars wanted, has zone=a"],
        "w2": ["zone=mars wanted, has zone=b"],
    }
    labels = [c.label() for c in finding.evidence]
    assert labels[0] == "evidence/jobs.json#/jobs/1/requirements"
    assert "evidence/workers.json#/workers/0/labels" in labels


def test_no_matching_worker_in_a_large_fleet_cites_as_many_as_every_rule(fleet: Fleet) -> None:
    """Citations of workers follow ``wording.CITED`` here too, not a count of the rule's own."""
    assert fleet.workers is not None
    fleet.workers.workers += [worker(f"x{i:02d}") for i in range(20)]
    waiting = _waiting(fleet, labels={"zone": "mars"})
    result = judge(rules.job_placement, fleet, worker=None, job=waiting)
    assert result is not None
    finding = result.findings[0]
    assert len(finding.details["per_worker"]) == 22  # the JSON keeps every worker
    workers_cited = [c for c in finding.evidence if "workers.json" in c.label()]
    assert len(workers_cited) == CITED


def test_candidate_that_matches_passes(fleet: Fleet) -> None:
    waiting = _waiting(fleet, labels={"zone": "b"})
    assert codes(judge(rules.job_placement, fleet, worker="w2", job=waiting)) == [
        "PLACEMENT_MATCHED"
    ]
    assert codes(judge(rules.job_placement, fleet, worker=None, job=waiting)) == [
        "PLACEMENT_MATCHED"
    ]


def test_requested_worker_not_eligible_names_why(fleet: Fleet) -> None:
    waiting = _waiting(fleet, labels={"zone": "b"}, worker_group="edge")
    result = judge(rules.job_placement, fleet, worker="w1", job=waiting)
    assert codes(result) == ["WORKER_NOT_ELIGIBLE"]
    assert result is not None
    assert "zone=b wanted, has zone=a" in result.findings[0].message


def test_group_unknown_on_the_worker_is_uncertain_not_a_mismatch(fleet: Fleet) -> None:
    waiting = _waiting(fleet, labels={"zone": "b"}, worker_group="edge")
    assert status(judge(rules.job_placement, fleet, worker="w2", job=waiting)) is (
        LayerStatus.UNKNOWN
    )
    fleet.worker("w2").group = "edge"
    assert status(judge(rules.job_placement, fleet, worker="w2", job=waiting)) is LayerStatus.PASS


def test_pinned_to_an_unknown_worker_fails(fleet: Fleet) -> None:
    waiting = _waiting(fleet, required_worker="w9")
    assert codes(judge(rules.job_placement, fleet, worker=None, job=waiting)) == [
        "PINNED_WORKER_UNKNOWN"
    ]


def test_pinned_elsewhere_and_os_mismatch_are_named(fleet: Fleet) -> None:
    waiting = _waiting(fleet, required_worker="w2", os="windows")
    result = judge(rules.job_placement, fleet, worker="w1", job=waiting)
    assert result is not None
    assert result.findings[0].details["unmatched"] == ["required_worker", "os"]


def test_missing_requirements_are_unknown(fleet: Fleet) -> None:
    waiting = _waiting(fleet)
    waiting.requirements = None
    assert codes(judge(rules.job_placement, fleet, worker=None, job=waiting)) == [
        "JOB_REQUIREMENTS_MISSING"
    ]


def _native(fleet: Fleet, placement: JobPlacement) -> None:
    fleet.extra.append(PlacementEvidence(placements=[placement]))


def test_product_placement_filtered_worker_fails_with_its_reasons(fleet: Fleet) -> None:
    _native(
        fleet,
        JobPlacement(
            job="ingest",
            evaluated=2,
            eligible=1,
            placed=1,
            per_worker=[
                WorkerPlacementVerdict(worker="w1", verdict="placed"),
                WorkerPlacementVerdict(
                    worker="w2",
                    verdict="filtered",
                    reasons=["NOT_IN_WORKER_GROUP"],
                    detail="group edge wanted",
                ),
            ],
        ),
    )
    assert codes(judge(rules.job_placement, fleet, worker="w1", job="ingest")) == ["JOB_PLACED"]
    result = judge(rules.job_placement, fleet, worker="w2", job="ingest")
    assert codes(result) == ["WORKER_NOT_ELIGIBLE"]
    assert result is not None
    assert result.findings[0].details["reasons"] == ["NOT_IN_WORKER_GROUP"]


def test_product_placement_without_eligible_workers_or_replicas_fails(fleet: Fleet) -> None:
    _native(
        fleet,
        JobPlacement(
            job="ingest",
            evaluated=2,
            eligible=0,
            placed=0,
            summary="0/2 eligible",
            native_code="NO_ELIGIBLE_WORKERS",
        ),
    )
    assert codes(judge(rules.job_placement, fleet, worker=None, job="ingest")) == [
        "NO_ELIGIBLE_WORKERS"
    ]
    fleet.extra.clear()
    _native(
        fleet, JobPlacement(job="ingest", desired=JobRequirements(replicas=2), eligible=2, placed=1)
    )
    assert codes(judge(rules.job_placement, fleet, worker=None, job="ingest")) == [
        "REPLICAS_UNSATISFIED"
    ]


def test_no_match_also_names_what_else_each_worker_lacks(fleet: Fleet) -> None:
    from schemas.evidence import ResourceRequest

    waiting = _waiting(fleet, labels={"zone": "mars"}, resources=ResourceRequest(gpu=1))
    result = judge(rules.job_placement, fleet, worker=None, job=waiting)
    assert result is not None
    finding = result.findings[0]
    assert finding.details["capacity_per_worker"] == {
        "w1": ["gpu 1 requested, 0 available"],
        "w2": ["gpu 1 requested, 0 available"],
    }
    assert "Beyond placement: w1, w2: gpu 1 requested, 0 available." in finding.message


def test_product_placement_eligible_worker_for_a_waiting_job_passes(fleet: Fleet) -> None:
    waiting = _waiting(fleet, labels={"zone": "a"})
    _native(
        fleet,
        JobPlacement(
            job="sleeper",
            per_worker=[
                WorkerPlacementVerdict(worker="w1", verdict="eligible_not_placed"),
            ],
        ),
    )
    assert codes(judge(rules.job_placement, fleet, worker="w1", job=waiting)) == ["JOB_ELIGIBLE"]
    # ... but for a job already placed elsewhere it means: not intended for this worker.
    fleet.extra.clear()
    _native(
        fleet,
        JobPlacement(
            job="ingest",
            per_worker=[
                WorkerPlacementVerdict(worker="w1", verdict="placed"),
                WorkerPlacementVerdict(worker="w2", verdict="eligible_not_placed"),
            ],
        ),
    )
    assert codes(judge(rules.job_placement, fleet, worker="w2", job="ingest")) == [
        "NOT_INTENDED_FOR_WORKER"
    ]
