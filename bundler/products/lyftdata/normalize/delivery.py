"""Layers 4 and 7: deployments (desired vs actual per worker) and outcomes (canary + receipts)."""

from __future__ import annotations

from schemas.evidence import (
    CanaryRun,
    DeploymentEvidence,
    DeploymentRecord,
    JobDeployment,
    JobEvent,
    OutcomeEvidence,
    Receipt,
    RenderInfo,
)

from ...raw import RawReader, Read
from ..raw import CanaryRaw, CanaryReceipts, DeploymentRaw
from ..raw.delivery import JobDeploymentRaw
from .reading import absent, gaps, settle_gaps, utc

_CANARY_PHASES = (
    "pending",
    "running",
    "successful",
    "failed",
    "error",
    "inconclusive",
    "timed_out",
)
_STRENGTHS = ("accepted", "buffered", "durable", "indexed")


def _job_deployment(
    raw: JobDeploymentRaw, deployment_id: str, listed: Read[DeploymentRaw], pointer: str
) -> JobDeployment:
    side = raw.actual or raw.desired
    return JobDeployment(
        job=raw.job,
        worker=raw.worker_id,
        deployment_id=deployment_id,
        state=raw.state,
        reason=raw.reason,
        message=raw.message,
        staged=raw.staged,
        staged_revision=side.staged_revision if side else None,
        intended_revision=raw.desired.staged_revision if raw.desired else None,
        running_revision=raw.actual.staged_revision if raw.actual else None,
        rendered=None
        if raw.rendered is None
        else RenderInfo(
            sha256=raw.rendered.sha256,
            context_keys_resolved=raw.rendered.context_keys_resolved,
            context_keys_missing=list(raw.rendered.context_keys_missing),
        ),
        bundle_signature_verified=raw.bundle_signature.verified if raw.bundle_signature else None,
        state_since=utc(raw.state_since),
        events=[
            JobEvent(type=e.type, at=utc(e.at), source="server", detail=e.detail)
            for e in raw.events
        ],
        source=listed.source(pointer),
    )


def normalize_deployments(reader: RawReader) -> DeploymentEvidence:
    # LyftData always deploys jobs: a 404 here is missing evidence (a gap), never
    # "this product has no deployment step"
    doc = DeploymentEvidence(
        product="lyftdata",
        observed_at=reader.ctx.observed_at,
        applicable=True,
        gaps=gaps(reader, "deployments") + absent(reader, "deployments"),
    )
    doc.complete = reader.has_document("deployments") and not doc.gaps
    for listed in reader.listed("deployments", DeploymentRaw):
        dep = listed.value
        doc.deployments.append(
            DeploymentRecord(
                deployment_id=dep.id,
                workflow=dep.workflow.id if dep.workflow else None,
                version=dep.workflow.version if dep.workflow else None,
                status=dep.status,
                reconcile_state=dep.reconcile.state if dep.reconcile else None,
                drift=list(dep.reconcile.drift) if dep.reconcile else [],
                last_known_good=dep.last_known_good,
                job_deployments=[
                    _job_deployment(jd, dep.id, listed, f"{listed.pointer}/job_deployments/{i}")
                    for i, jd in enumerate(dep.job_deployments)
                ],
            )
        )
    settle_gaps(doc, reader, "deployments")
    return doc


def normalize_outcome(reader: RawReader) -> OutcomeEvidence:
    doc = OutcomeEvidence(
        product="lyftdata",
        observed_at=reader.ctx.observed_at,
        gaps=gaps(reader, "canaries", "canary-receipts") + absent(reader, "canaries"),
    )
    doc.complete = reader.has_document("canaries") and not doc.gaps
    jobs_by_canary: dict[str, str] = {}
    for listed in reader.listed("canaries", CanaryRaw):
        canary = listed.value
        jobs_by_canary[canary.canary_id] = canary.job
        doc.canaries.append(
            CanaryRun(
                canary_id=canary.canary_id,
                job=canary.job,
                worker=canary.worker_id,
                mode="transient_run" if canary.mode == "transient_run" else "canary",
                phase=canary.phase if canary.phase in _CANARY_PHASES else "inconclusive",  # type: ignore[arg-type]
                started_at=utc(canary.started_at),
                finished_at=utc(canary.finished_at),
                events_in=canary.events_in,
                events_out=canary.events_out,
                errors=canary.errors,
                receipt_required=canary.receipt_required,
                nonce=canary.nonce,
                source=listed.source(),
            )
        )
    for fetch in reader.items("canary-receipts", CanaryReceipts):
        receipts = fetch.value
        for i, r in enumerate(receipts.receipts):
            doc.receipts.append(
                Receipt(
                    canary_id=receipts.canary_id,
                    job=jobs_by_canary.get(receipts.canary_id),
                    sink=r.sink,
                    receipt_type=r.receipt_type,
                    strength=r.strength if r.strength in _STRENGTHS else None,  # type: ignore[arg-type]
                    acked=r.acked,
                    nonce_matched=r.nonce_matched,
                    observed_at=utc(r.observed_at),
                    source=fetch.source(f"/receipts/{i}"),
                )
            )
    for deployment in reader.listed("deployments", DeploymentRaw):
        doc.last_known_good = doc.last_known_good or deployment.value.last_known_good
    settle_gaps(doc, reader, "canaries", "canary-receipts")
    return doc
