"""The before/after comparison of two bundles of one fleet: ``bundler diff BEFORE AFTER``.

The serviceability guide's *Recovery acceptance* is a before/after question:
the bundle from the incident, one taken after the repair, and whether every
acceptance check now holds. This report answers it: what changed per target
and per ladder layer, which findings were resolved, which are new, what
changed about workers, deployments and collection, and the acceptance
checklist evaluated on AFTER, including that its canary and receipt are
newer than BEFORE (an older success proves nothing about the repair).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import RecordModel, UTCDateTime
from .ladder import Layer, LayerStatus, Verdict

DIFF_SCHEMA = "bundler.diff/1"

DiffVerdict = Literal["recovered", "still_failing", "regressed", "inconclusive"]
LayerChangeKind = Literal[
    "fixed", "still_failing", "newly_failing", "became_unknown", "changed", "unchanged"
]
CheckStatus = Literal["pass", "fail", "unknown", "not_applicable"]


class DiffSide(RecordModel):
    """One of the two bundles, as far as the comparison needs it."""

    label: str = Field(description="The path or name the bundle was given as.")
    bundle_id: str | None = None
    created_at: UTCDateTime | None = None
    profile: str | None = None
    server_url: str | None = None
    server_version: str | None = None
    verdict: Verdict
    first_failed_layer: Layer | None = None
    integrity: str = Field(description="verified, tampered, partial or unverified.")


class LayerChange(RecordModel):
    layer: Layer
    before: LayerStatus | None = Field(default=None, description="None: target absent before.")
    after: LayerStatus | None = Field(default=None, description="None: target absent after.")
    change: LayerChangeKind
    regression: bool = Field(
        default=False,
        description="True when a layer that passed (or did not apply) before fails now.",
    )


class TargetChange(RecordModel):
    """One target (worker, job) in both bundles, matched by name."""

    worker: str | None = None
    job: str | None = None
    matched_by: Literal[
        "worker and job",
        "worker",
        "job",
        "walked on AFTER by name",
        "walked on BEFORE by name",
        "before only",
        "after only",
    ] = Field(
        description=(
            "How the two were paired. 'walked on X by name': X's analysis did not choose "
            "this target, so its ladder was walked there for the same worker and job."
        )
    )
    before_verdict: Verdict | None = None
    after_verdict: Verdict | None = None
    before_first_failed: Layer | None = None
    after_first_failed: Layer | None = None
    layers: list[LayerChange] = Field(default_factory=list)
    recovery_target: bool = Field(
        default=False,
        description="True when BEFORE showed trouble here: acceptance is judged on it.",
    )


class FindingChange(RecordModel):
    code: str
    subject: str = Field(description="'worker w2', 'job default/etl', 'w2 / default/etl', 'fleet'.")
    change: Literal["resolved", "new", "persisting"]
    severity_before: str | None = None
    severity_after: str | None = None
    message: str = Field(description="The finding's message (AFTER's when it persists).")


class FieldChange(RecordModel):
    """One fact about one subject (a worker, a deployment) that differs between the bundles."""

    subject: str
    field: str
    before: Any = None
    after: Any = None


class CollectorChange(RecordModel):
    collector: str
    before: str | None = Field(default=None, description="Status before; None: not run.")
    after: str | None = Field(default=None, description="Status after; None: not run.")
    error: str | None = Field(default=None, description="The failing side's error or note.")


class AcceptanceResult(RecordModel):
    """One check of the Recovery acceptance list, over AFTER's recovery targets."""

    check: str
    status: CheckStatus
    detail: str | None = None
    targets: dict[str, CheckStatus] = Field(
        default_factory=dict, description="Each recovery target's own status."
    )


class DiffReport(RecordModel):
    schema_: str = Field(default=DIFF_SCHEMA, alias="schema")
    tool_version: str
    verdict: DiffVerdict = Field(
        description=(
            "recovered: every applicable acceptance check holds on AFTER and nothing "
            "regressed; still_failing: a layer or check still fails; regressed: something "
            "that passed before fails now; inconclusive: nothing fails, but evidence is "
            "missing or the pair cannot prove a repair (doubts)."
        )
    )
    before: DiffSide
    after: DiffSide
    warnings: list[str] = Field(default_factory=list)
    doubts: list[str] = Field(
        default_factory=list,
        description=(
            "Why the pair itself cannot prove a repair, whatever AFTER shows: AFTER was "
            "collected from another server than BEFORE, or before it. Each is also a warning; "
            "with any of them the verdict is never recovered (inconclusive instead)."
        ),
    )
    targets: list[TargetChange] = Field(default_factory=list)
    findings: list[FindingChange] = Field(default_factory=list)
    workers: list[FieldChange] = Field(default_factory=list)
    deployments: list[FieldChange] = Field(default_factory=list)
    collectors: list[CollectorChange] = Field(default_factory=list)
    acceptance: list[AcceptanceResult] = Field(default_factory=list)
