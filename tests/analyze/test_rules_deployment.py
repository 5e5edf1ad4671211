"""Rung 4 rules: deployment state, render context, bundle signature, drift, applicability."""

from __future__ import annotations

import pytest

from bundler.analyze.rules import deployment as rules
from schemas import LayerStatus
from schemas.evidence import DeploymentEvidence, JobDeployment, RenderInfo
from tests.support.evidence import Fleet

from .conftest import codes, judge, status


def _jd(fleet: Fleet) -> JobDeployment:
    assert fleet.deployments is not None
    return fleet.deployments.deployments[0].job_deployments[0]


def test_active_deployment_passes(fleet: Fleet) -> None:
    assert codes(judge(rules.job_deployment, fleet, job="ingest")) == ["DEPLOYMENT_RUNNABLE"]


def test_not_applicable_for_products_without_deployments(fleet: Fleet) -> None:
    fleet.deployments = DeploymentEvidence(applicable=False)
    assert status(judge(rules.job_deployment, fleet, job="ingest")) is LayerStatus.NOT_APPLICABLE


def test_missing_deployment_evidence_is_unknown(fleet: Fleet) -> None:
    fleet.deployments = None
    assert status(judge(rules.job_deployment, fleet, job="ingest")) is LayerStatus.UNKNOWN


def test_failed_deployment_carries_reason_and_message(fleet: Fleet) -> None:
    jd = _jd(fleet)
    jd.state = "failed"
    jd.reason = "JOB_START_FAILED"
    jd.message = "input exited 1"
    result = judge(rules.job_deployment, fleet, job="ingest")
    assert codes(result) == ["DEPLOYMENT_FAILED"]
    assert result is not None
    assert result.findings[0].native_code == "JOB_START_FAILED"
    assert "input exited 1" in result.findings[0].message


def test_missing_context_key_is_named(fleet: Fleet) -> None:
    jd = _jd(fleet)
    jd.state = "failed"
    jd.rendered = RenderInfo(context_keys_missing=["bucket_name"])
    result = judge(rules.job_deployment, fleet, job="ingest")
    assert codes(result) == ["RENDER_CONTEXT_MISSING"]
    assert result is not None
    assert "bucket_name" in result.findings[0].message
    assert result.findings[0].evidence[0].pointer == (
        "/deployments/0/job_deployments/0/rendered/context_keys_missing"
    )


def test_refused_bundle_signature_fails(fleet: Fleet) -> None:
    _jd(fleet).bundle_signature_verified = False
    assert codes(judge(rules.job_deployment, fleet, job="ingest")) == ["BUNDLE_SIGNATURE_INVALID"]


def test_unstaged_job_fails(fleet: Fleet) -> None:
    jd = _jd(fleet)
    jd.state = "pending"
    jd.staged = False
    result = judge(rules.job_deployment, fleet, job="ingest")
    assert status(result) is LayerStatus.FAIL
    assert "JOB_NOT_DEPLOYED" in codes(result)


def test_in_progress_warns_and_removed_fails(fleet: Fleet) -> None:
    _jd(fleet).state = "delivering"
    assert codes(judge(rules.job_deployment, fleet, job="ingest")) == ["DEPLOYMENT_IN_PROGRESS"]
    _jd(fleet).state = "removed"
    assert codes(judge(rules.job_deployment, fleet, job="ingest")) == ["JOB_NOT_DEPLOYED"]


def test_deployed_to_another_worker_only(fleet: Fleet) -> None:
    result = judge(rules.job_deployment, fleet, worker="w2", job="ingest")
    assert codes(result) == ["JOB_NOT_DEPLOYED"]
    assert result is not None
    assert result.findings[0].details["deployed_to"] == ["w1"]


def test_no_record_in_complete_evidence_fails_in_incomplete_is_unknown(fleet: Fleet) -> None:
    assert fleet.deployments is not None
    fleet.deployments.deployments = []
    assert codes(judge(rules.job_deployment, fleet, job="ingest")) == ["JOB_NOT_DEPLOYED"]
    fleet.deployments.complete = False
    assert status(judge(rules.job_deployment, fleet, job="ingest")) is LayerStatus.UNKNOWN


def test_worker_only_target_judges_that_workers_deployments(fleet: Fleet) -> None:
    assert status(judge(rules.job_deployment, fleet, worker="w2")) is LayerStatus.NOT_APPLICABLE
    _jd(fleet).state = "failed"
    assert codes(judge(rules.job_deployment, fleet, worker="w1")) == ["DEPLOYMENT_FAILED"]


def test_drift_warns(fleet: Fleet) -> None:
    assert judge(rules.deployment_drift, fleet, job="ingest") is None
    assert fleet.deployments is not None
    fleet.deployments.deployments[0].drift = ["MISSING_REPLICA:ingest@w3"]
    assert codes(judge(rules.deployment_drift, fleet, job="ingest")) == ["DRIFT_DETECTED"]


@pytest.mark.parametrize("later_first", [False, True])
def test_drift_on_two_deployments_of_the_job_names_both_in_either_order(
    fleet: Fleet, later_first: bool
) -> None:
    """Two deployments of the job (an earlier one not yet removed), both drifted: neither is
    the job's by where it is listed, so the warning names and cites both."""
    assert fleet.deployments is not None
    records = fleet.deployments.deployments
    records[0].drift = ["MISSING_REPLICA:ingest@w3"]
    later = records[0].model_copy(update={"deployment_id": "dep-2", "drift": ["REVISION_DRIFT"]})
    records.insert(0 if later_first else 1, later)
    result = judge(rules.deployment_drift, fleet, job="ingest")
    assert result is not None
    [finding] = result.findings
    assert "dep-1: MISSING_REPLICA:ingest@w3" in finding.message
    assert "dep-2: REVISION_DRIFT" in finding.message
    assert {c.pointer for c in finding.evidence} == {"/deployments/0/drift", "/deployments/1/drift"}
    assert sorted(finding.details["drift"]) == ["MISSING_REPLICA:ingest@w3", "REVISION_DRIFT"]
