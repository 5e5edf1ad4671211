"""Canonical, product-neutral evidence: one document kind per ladder concern.

Every kind is declared once in :data:`EVIDENCE_KINDS` with its schema name and
its bundle member path, so collectors and rules agree without hard-coding paths.
"""

from __future__ import annotations

from ._common import EvidenceDoc, Source
from .authorization import (
    AuthorizationEvidence,
    Lease,
    LeaseSignature,
    RegistrationAttempts,
    WorkerAuthorization,
)
from .capacity import CapacityEvidence, WorkerCapacity
from .deployment import DeploymentEvidence, DeploymentRecord, JobDeployment, RenderInfo
from .hosts import ClockReading, DiskUsage, HostsEvidence, HostSysinfo, ServiceStatus, TimeSync
from .jobs import Job, JobEvent, JobPhase, JobRequirements, JobsEvidence, ResourceRequest
from .local_state import ControlSocket, LocalStateEvidence, StateFileCheck, StateVolume
from .logs import LogIndex, LogSource
from .outcome import CanaryRun, OutcomeEvidence, Receipt
from .placement import JobPlacement, PlacementEvidence, WorkerPlacementVerdict
from .product import ProductInfo
from .requirements import Blocker, Requirement, RequirementsEvidence, RequirementsReport
from .server import APIAuth, HTTPProbe, LicenseInfo, ServerEvidence, TLSInfo
from .workers import (
    GPU,
    AdminState,
    ClockOffset,
    ConnectionState,
    HealthState,
    HeartbeatPolicy,
    Package,
    WorkerResources,
    WorkerRuntime,
    WorkersEvidence,
    WorkerStatus,
)

EVIDENCE_KINDS: dict[str, type[EvidenceDoc]] = {
    cls.schema_name: cls
    for cls in (
        ProductInfo,
        ServerEvidence,
        WorkersEvidence,
        AuthorizationEvidence,
        JobsEvidence,
        PlacementEvidence,
        DeploymentEvidence,
        RequirementsEvidence,
        CapacityEvidence,
        OutcomeEvidence,
        HostsEvidence,
        LogIndex,
        LocalStateEvidence,
    )
}
"""Schema name -> evidence document class. Member path is ``cls.member_path``."""

__all__ = [
    "EVIDENCE_KINDS",
    "GPU",
    "APIAuth",
    "AdminState",
    "AuthorizationEvidence",
    "Blocker",
    "CanaryRun",
    "CapacityEvidence",
    "ClockOffset",
    "ClockReading",
    "ConnectionState",
    "ControlSocket",
    "DeploymentEvidence",
    "DeploymentRecord",
    "DiskUsage",
    "EvidenceDoc",
    "HTTPProbe",
    "HealthState",
    "HeartbeatPolicy",
    "HostSysinfo",
    "HostsEvidence",
    "Job",
    "JobDeployment",
    "JobEvent",
    "JobPhase",
    "JobPlacement",
    "JobRequirements",
    "JobsEvidence",
    "Lease",
    "LeaseSignature",
    "LicenseInfo",
    "LocalStateEvidence",
    "LogIndex",
    "LogSource",
    "OutcomeEvidence",
    "Package",
    "PlacementEvidence",
    "ProductInfo",
    "Receipt",
    "RegistrationAttempts",
    "RenderInfo",
    "Requirement",
    "RequirementsEvidence",
    "RequirementsReport",
    "ResourceRequest",
    "ServerEvidence",
    "ServiceStatus",
    "Source",
    "StateFileCheck",
    "StateVolume",
    "TLSInfo",
    "TimeSync",
    "WorkerAuthorization",
    "WorkerCapacity",
    "WorkerPlacementVerdict",
    "WorkerResources",
    "WorkerRuntime",
    "WorkerStatus",
    "WorkersEvidence",
]
