"""A phantom worker leaves a healthy Flux fleet healthy; a park-TTL failure is a placement failure.

Both start from the committed ``flux-healthy`` sample (evidence a real Flux
produced) and change one fact, then run the whole engine with the Flux profile.
"""

from __future__ import annotations

import json

from bundler.analyze.api import EvidenceSet
from bundler.analyze.engine import analyze
from bundler.products.flux import PROFILE
from schemas import Layer, LayerStatus, Verdict
from schemas.evidence import JobsEvidence, WorkersEvidence
from tests.support.sample_bundles import load_sample


def _healthy_with(change_workers=None, change_jobs=None):  # type: ignore[no-untyped-def]
    source, manifest = load_sample("flux-healthy")
    for cls, change in ((WorkersEvidence, change_workers), (JobsEvidence, change_jobs)):
        if change is not None:
            doc = json.loads(source.read_bytes(cls.member_path))
            change(doc)
            source.add(cls.member_path, doc)
    return analyze(EvidenceSet(source, manifest), profile=PROFILE)


def test_the_healthy_sample_is_healthy_to_begin_with() -> None:
    assert _healthy_with().verdict is Verdict.HEALTHY


def test_a_phantom_worker_does_not_degrade_a_healthy_fleet() -> None:
    def add_phantom(doc: dict) -> None:  # type: ignore[type-arg]
        phantom = dict(doc["workers"][0])
        phantom.update(
            name="retired-7",
            native_status="offline",
            connection="offline",
            host_alias=None,
            departed=True,
            in_flight=0,
        )
        doc["workers"].append(phantom)

    report = _healthy_with(change_workers=add_phantom)
    assert report.verdict is Verdict.HEALTHY, [(t.worker, t.job, t.verdict) for t in report.targets]
    assert all(t.worker != "retired-7" for t in report.targets)


def test_a_phantom_worker_that_work_depends_on_is_still_an_incident() -> None:
    def add_phantom(doc: dict) -> None:  # type: ignore[type-arg]
        phantom = dict(doc["workers"][0])
        phantom.update(
            name="retired-7", native_status="offline", connection="offline", host_alias=None
        )
        phantom["departed"] = True
        doc["workers"].append(phantom)

    def pin_a_run(doc: dict) -> None:  # type: ignore[type-arg]
        doc["jobs"].append(
            {
                "name": "default/pinned",
                "id": "pinned-1",
                "kind": "execution",
                "phase": "unassigned",
                "native_state": "CREATED",
                "requirements": {"required_worker": "retired-7"},
            }
        )

    report = _healthy_with(change_workers=add_phantom, change_jobs=pin_a_run)
    assert report.verdict is Verdict.BLOCKED
    assert any(t.worker == "retired-7" for t in report.targets)


def test_a_park_timeout_gets_the_flux_placement_finding_with_its_cause() -> None:
    def park_failed(doc: dict) -> None:  # type: ignore[type-arg]
        doc["jobs"].append(
            {
                "name": "default/parked",
                "id": "parked-1",
                "kind": "execution",
                "phase": "failed",
                "native_state": "FAILED",
                "error": "ParkTimeoutError: No eligible worker claimed this execution before "
                "its park deadline (2026-11-29T17:01:51); affinity={'zone': 'mars'}",
                "requirements": {"labels": {"zone": "mars"}},
            }
        )

    report = _healthy_with(change_jobs=park_failed)
    target = next(t for t in report.targets if t.job_id == "parked-1")
    assert target.first_failed_layer is Layer.PLACEMENT
    placement = next(layer for layer in target.layers if layer.name is Layer.PLACEMENT)
    assert placement.status is LayerStatus.FAIL
    codes = [f.code for f in placement.findings]
    assert "FLUX_PARK_TIMEOUT" in codes, codes
    finding = next(f for f in placement.findings if f.code == "FLUX_PARK_TIMEOUT")
    assert "park" in finding.message.lower()
    assert "zone" in finding.message
    assert finding.recovery is not None
    assert "park_ttl" in " ".join(finding.recovery.steps)
