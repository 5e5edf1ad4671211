"""The analyzer's report: verdict first, then each target's ladder with cited evidence.

This is what ``bundler analyze --format json`` prints and what
``bundler doctor --json`` prints live. Every finding cites evidence by bundle
member and JSON pointer or line range, never by paraphrase alone.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import RecordModel, UTCDateTime
from .citation import Citation
from .ladder import Layer, LayerStatus, Verdict
from .overview import FleetOverview

ANALYSIS_SCHEMA = "bundler.analysis/1"


class Recovery(RecordModel):
    """What to do about a finding: the recovery path from the product's guide, and its cautions."""

    summary: str
    steps: list[str] = Field(default_factory=list)
    cautions: list[str] = Field(default_factory=list)
    reference: str | None = Field(default=None, description="Where the advice comes from.")


FindingSeverity = Literal["fail", "warn", "info", "pass"]


class Finding(RecordModel):
    code: str = Field(description="Stable SCREAMING_SNAKE code, e.g. WORKER_HEARTBEAT_STALE.")
    severity: FindingSeverity
    message: str
    evidence: list[Citation] = Field(default_factory=list)
    recovery: Recovery | None = None
    acceptance: list[str] = Field(
        default_factory=list, description="Checks that prove the recovery worked."
    )
    native_code: str | None = Field(default=None, description="Product's own code, verbatim.")
    missing: list[str] = Field(
        default_factory=list,
        description="For an unknown: the evidence members (or failed collectors) whose absence "
        "or incompleteness left it undecided.",
    )
    to_decide: str | None = Field(
        default=None,
        description="For an unknown: how to decide it (the doctor option or inventory entry "
        "that collects the missing evidence).",
    )
    details: dict[str, Any] = Field(default_factory=dict)


class LayerResult(RecordModel):
    name: Layer
    status: LayerStatus
    blocked_by: Layer | None = Field(
        default=None, description="For skipped layers: the failed layer below."
    )
    findings: list[Finding] = Field(default_factory=list)


class AcceptanceCheck(RecordModel):
    """One line of the product's recovery acceptance checklist, evaluated on the evidence.

    Each product words its own checks (LyftData: its *Worker Recovery and Serviceability*
    guide's "Recovery acceptance"; Flux: what Flux shows); ``check`` is that text.
    """

    check: str
    layer: Layer
    status: Literal["pass", "fail", "unknown", "not_applicable"]


class TargetReport(RecordModel):
    """The ladder for one (worker, job) pair. Either side may be None."""

    worker: str | None = None
    job: str | None = None
    job_id: str | None = None
    reason: str | None = Field(
        default=None, description="Why this target was chosen (e.g. 'execution stuck CREATED')."
    )
    verdict: Verdict
    first_failed_layer: Layer | None = None
    layers: list[LayerResult]
    acceptance: list[AcceptanceCheck] = Field(default_factory=list)


class Integrity(RecordModel):
    status: Literal["verified", "tampered", "partial", "unverified"]
    problems: list[str] = Field(default_factory=list)


class BundleInfo(RecordModel):
    bundle_id: str | None = None
    created_at: UTCDateTime | None = None
    profile: str | None = None
    format: str | None = None
    tool_version: str | None = None
    integrity: Integrity
    collectors_total: int = 0
    collectors_failed: list[str] = Field(
        default_factory=list, description="'id: status (reason)' for each non-ok collector."
    )


class AnalysisReport(RecordModel):
    schema_: str = Field(default=ANALYSIS_SCHEMA, alias="schema")
    tool_version: str
    bundle: BundleInfo
    verdict: Verdict
    first_failed_layer: Layer | None = None
    targets: list[TargetReport] = Field(default_factory=list)
    fleet_findings: list[Finding] = Field(
        default_factory=list,
        description="Findings about the fleet as a whole (clock skew, phantom workers ...).",
    )
    collection: dict[str, Any] | None = Field(
        default=None,
        description="From `bundler doctor --json` only: how the collection went "
        "(`bundler.doctor-summary/1`: collected/total, problems and their groups, hosts, bundle, "
        "exit code).",
    )
    fleet: FleetOverview | None = Field(
        default=None,
        description="Every worker on one line (status, heartbeat, slots, jobs, verdict), and "
        "the same grouped by finding; None in reports written before it existed.",
    )
