"""A fleet's size must not multiply the work: one worker is looked up by name, not by a scan.

A hostile (or simply huge) bundle lists 100,000 workers. Rules, target
selection, trouble and the fleet overview look workers up by name for every
worker; a scan of the list per lookup is quadratic (10,000 workers took
minutes, 100,000 hours). Timed tests are not how this project measures speed
(``bench/``), so this counts how often each per-worker list is walked while a
fleet is analyzed: a constant number of times, whatever the fleet's size.
"""

from __future__ import annotations

import pytest

from bundler.analyze.engine import analyze
from bundler.analyze.targets import select_targets
from bundler.products.base import Profile
from bundler.products.flux import PROFILE as FLUX
from bundler.products.lyftdata import PROFILE as LYFTDATA
from schemas.evidence import (
    AuthorizationEvidence,
    CanaryRun,
    CapacityEvidence,
    DeploymentEvidence,
    DeploymentRecord,
    EvidenceDoc,
    HostsEvidence,
    JobDeployment,
    JobPhase,
    JobPlacement,
    JobRequirements,
    JobsEvidence,
    OutcomeEvidence,
    PlacementEvidence,
    RequirementsEvidence,
    RequirementsReport,
    WorkerPlacementVerdict,
    WorkersEvidence,
)
from tests.support.evidence import T0, Walked, healthy_fleet, job, with_more_workers, worker

PER_WORKER = (WorkersEvidence, CapacityEvidence, AuthorizationEvidence)


def _walks_per_list(size: int, profile: Profile | None = None) -> dict[str, int]:
    fleet = with_more_workers(healthy_fleet(), [f"x{i}" for i in range(size)])
    evidence = fleet.evidence()
    walked = {}
    for cls in PER_WORKER:
        doc = evidence.get(cls)
        assert doc is not None
        walked[cls.__name__] = doc.workers = Walked(doc.workers)  # type: ignore[attr-defined]
    hosts = evidence.get(HostsEvidence)
    assert hosts is not None
    walked["HostsEvidence"] = hosts.hosts = Walked(hosts.hosts)
    report = analyze(evidence, profile=profile)
    assert report.fleet is not None
    assert len(report.fleet.workers) == size + 2
    return {name: listed.walks for name, listed in walked.items()}


@pytest.mark.parametrize("profile", [None, FLUX, LYFTDATA], ids=["generic", "flux", "lyftdata"])
@pytest.mark.parametrize("size", [300])
def test_per_worker_lists_are_walked_a_constant_number_of_times(
    size: int, profile: Profile | None
) -> None:
    """With each product's own rules too: every ladder (200 of a large fleet's) runs them."""
    small, large = _walks_per_list(10, profile), _walks_per_list(size, profile)
    assert large == small, (small, large)
    assert max(large.values()) < 30, large


PER_JOB: tuple[tuple[type[EvidenceDoc], str], ...] = (
    (JobsEvidence, "jobs"),
    (PlacementEvidence, "placements"),
    (DeploymentEvidence, "deployments"),
    (RequirementsEvidence, "reports"),
    (OutcomeEvidence, "canaries"),
)


def _jobs_walked_choosing_targets(size: int) -> dict[str, int]:
    """Walks of each per-job list while targets are chosen for the fleet and for each worker.

    ``size`` more workers, each with a job the product placed on it (LyftData's shape: no
    assigned worker, a placement report, a job deployment, a requirements report and a
    canary); every fifth waits for a worker, so its candidate is looked for.
    """
    fleet = healthy_fleet()
    assert fleet.workers is not None
    assert fleet.jobs is not None
    assert fleet.deployments is not None
    assert fleet.requirements is not None
    assert fleet.outcome is not None
    names = [f"x{i}" for i in range(size)]
    fleet.workers.workers += [worker(name, labels={"zone": "b"}) for name in names]
    fleet.jobs.jobs += [
        job(
            f"job-{name}",
            assigned_worker=None,
            phase=JobPhase.UNASSIGNED if i % 5 == 0 else JobPhase.RUNNING,
            requirements=JobRequirements(labels={"zone": "b"}),
        )
        for i, name in enumerate(names)
    ]
    placements = PlacementEvidence(
        observed_at=T0,
        product="test",
        placements=[
            JobPlacement(
                job=f"job-{name}",
                per_worker=[WorkerPlacementVerdict(worker=name, verdict="placed")],
            )
            for name in names
        ],
    )
    fleet.extra.append(placements)
    fleet.deployments.deployments += [
        DeploymentRecord(
            deployment_id=f"dep-{name}",
            job_deployments=[JobDeployment(job=f"job-{name}", worker=name, state="active")],
        )
        for name in names
    ]
    fleet.requirements.reports += [
        RequirementsReport(job=f"job-{name}", worker=name) for name in names
    ]
    fleet.outcome.canaries += [
        CanaryRun(canary_id=f"c-{name}", job=f"job-{name}", worker=name, phase="successful")
        for name in names
    ]
    evidence = fleet.evidence()
    walked = {}
    for cls, field in PER_JOB:
        doc = evidence.get(cls)
        assert doc is not None
        walked[cls.__name__] = counted = Walked(getattr(doc, field))
        setattr(doc, field, counted)
    chosen = select_targets(evidence)
    assert any(t.job is not None and t.job.name == "job-x0" for t in chosen)
    waiting = 0
    for name in names:
        (target,) = select_targets(evidence, worker=name)
        assert target.worker == name
        waiting += target.job is not None  # its waiting job, found by its placement
    assert waiting == len(names[::5])
    return {name: listed.walks for name, listed in walked.items()}


@pytest.mark.parametrize("size", [200])
def test_per_job_lists_are_walked_a_constant_number_of_times_choosing_targets(size: int) -> None:
    """Whether a job is in trouble (its deployment, requirements and canary) and which workers
    it is meant for (its placement, its deployment) is looked up, not scanned for, per job."""
    small, large = _jobs_walked_choosing_targets(10), _jobs_walked_choosing_targets(size)
    assert large == small, (small, large)
    assert max(large.values()) < 10, large
